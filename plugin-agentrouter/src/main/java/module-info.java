/** Sluice provider plugin for agentrouter, an OpenAI-compatible reseller. */
module sluice.plugin.agentrouter {
    requires sluice.api;

    provides dev.sluice.api.ProviderPlugin with dev.sluice.plugin.agentrouter.AgentRouterPlugin;
}
