/**
 * The agentrouter provider: an OpenAI-compatible reseller, served by the runtime's built-in
 * OpenAI-compatible executor (named in the descriptor, not copied). Its status-restatement and
 * error rules (SPEC §16) arrive with the engine that acts on them.
 */
package dev.sluice.plugin.agentrouter;
