/**
 * The opencode family ({@code opencode-zen}, {@code opencode-go}, {@code opencode-cli}; SPEC
 * EB-1): OpenAI-compatible providers served by the runtime's built-in OpenAI-compatible executor.
 * Their egress-bucketing hook and error rules (SPEC §16) arrive with the engine that acts on them.
 */
package dev.sluice.plugin.opencode;
