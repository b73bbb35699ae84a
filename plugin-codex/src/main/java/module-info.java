/** Sluice provider plugin for ChatGPT subscription accounts (Codex CLI's login, the ChatGPT Codex Responses backend). */
module sluice.plugin.codex {
    requires sluice.api;
    requires sluice.toolkit;

    provides dev.sluice.api.ProviderPlugin with dev.sluice.plugin.codex.CodexPlugin;
}
