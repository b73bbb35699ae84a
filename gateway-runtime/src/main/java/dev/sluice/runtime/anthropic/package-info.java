/**
 * The Anthropic Messages protocol on the client side (SPEC API-3): {@link
 * dev.sluice.runtime.anthropic.AnthropicCodec} is the entry point that reads Messages requests into
 * the canonical model (top level in {@code MessagesRequestReader}, messages and content blocks in
 * {@code ContentBlockReader}) and writes canonical answers back as Messages JSON ({@code
 * MessageWriter}); {@link dev.sluice.runtime.anthropic.AnthropicStreamTranslator} turns a canonical
 * chunk stream into Anthropic SSE events one chunk at a time; {@link
 * dev.sluice.runtime.anthropic.TokenEstimate} answers {@code count_tokens} without calling an
 * upstream. The canonical model is the bridge, so an Anthropic client can be served by any
 * provider.
 */
package dev.sluice.runtime.anthropic;
