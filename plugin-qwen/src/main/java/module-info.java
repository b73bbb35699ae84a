/** Sluice provider plugin for Qwen Code subscription accounts (qwen.ai login, OpenAI-compatible). */
module sluice.plugin.qwen {
    requires sluice.api;

    provides dev.sluice.api.ProviderPlugin with dev.sluice.plugin.qwen.QwenPlugin;
}
