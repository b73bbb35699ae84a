/**
 * The Anthropic Claude provider: an executor for the Messages API ({@code POST {base}/v1/messages})
 * that translates canonical (OpenAI-style) requests into Messages requests and Messages answers,
 * complete or streamed event by event, back into canonical answers and chunks. Request
 * translation, response translation, stream translation, headers and errors each have their own
 * class; a small JSON reader/writer keeps the plugin free of dependencies beyond the SPI. The
 * plugin describes Claude Code's OAuth login ({@code ClaudeLogin}); the host runs it and renews the
 * access tokens of OAuth connections from it (issue 36).
 */
package dev.sluice.plugin.claude;
