/**
 * The OpenAI protocol: {@link dev.sluice.runtime.openai.OpenAiCodec} is the one entry point that
 * translates OpenAI Chat Completions JSON (requests, answers, SSE chunks, errors, embeddings) to
 * and from the canonical model; behind it each direction is its own small class (client requests
 * are read by {@code RequestReader}, upstream requests written by {@code RequestWriter}, answers
 * and chunks read and written by {@code ResponseReader}/{@code ResponseWriter} and {@code
 * ChunkReader}/{@code ChunkWriter}, upstream errors read by {@code ErrorReader}), sharing message,
 * usage and {@code extra} handling. {@link dev.sluice.runtime.openai.OpenAiCompatibleExecutor} is
 * the built-in executor for every OpenAI-compatible upstream, which plugins reuse through the SPI.
 */
package dev.sluice.runtime.openai;
