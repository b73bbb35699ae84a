/** Sluice provider plugin for Anthropic Claude (the Messages API). */
module sluice.plugin.claude {
    requires sluice.api;

    provides dev.sluice.api.ProviderPlugin with dev.sluice.plugin.claude.ClaudePlugin;
}
