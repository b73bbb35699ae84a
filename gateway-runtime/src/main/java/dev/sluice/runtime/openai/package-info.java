/**
 * The OpenAI protocol: {@link dev.sluice.runtime.openai.OpenAiCodec} translates OpenAI Chat
 * Completions JSON (requests, answers, SSE chunks, errors, embeddings) to and from the canonical
 * model, and {@link dev.sluice.runtime.openai.OpenAiCompatibleExecutor} is the built-in executor
 * for every OpenAI-compatible upstream, which plugins reuse through the SPI.
 */
package dev.sluice.runtime.openai;
