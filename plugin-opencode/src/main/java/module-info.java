/** Sluice provider plugin for the opencode family (OpenAI-compatible). */
module sluice.plugin.opencode {
    requires sluice.api;

    provides dev.sluice.api.ProviderPlugin with dev.sluice.plugin.opencode.OpenCodePlugin;
}
