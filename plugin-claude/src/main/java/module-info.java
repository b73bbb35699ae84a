/** Sluice provider plugin for Anthropic Claude (the Messages API). */
module sluice.plugin.claude {
    requires sluice.api;
    requires sluice.toolkit;

    provides dev.sluice.api.ProviderPlugin with dev.sluice.plugin.claude.ClaudePlugin;
}
