/**
 * The Google Gemini provider: an executor for Gemini's native {@code generateContent} and
 * {@code streamGenerateContent?alt=sse} endpoints that translates canonical (OpenAI-style) requests
 * into {@code GenerateContentRequest}s ({@link dev.sluice.plugin.gemini.GeminiRequestWriter},
 * {@link dev.sluice.plugin.gemini.SchemaSanitizer}), answers and stream fragments back
 * ({@link dev.sluice.plugin.gemini.GeminiResponseReader},
 * {@link dev.sluice.plugin.gemini.StreamTranslator}, {@link dev.sluice.plugin.gemini.GeminiSseStream}),
 * and Google error bodies into canonical errors with {@code RetryInfo} retry hints
 * ({@link dev.sluice.plugin.gemini.GeminiErrorReader}). The plugin depends on the SPI alone, so it
 * carries its own small JSON reader and writer ({@link dev.sluice.plugin.gemini.Json}).
 */
package dev.sluice.plugin.gemini;
