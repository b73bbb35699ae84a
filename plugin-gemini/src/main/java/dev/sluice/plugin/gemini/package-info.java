/**
 * The Google Gemini provider: an executor for Gemini's native {@code generateContent} and
 * {@code streamGenerateContent?alt=sse} endpoints that translates canonical (OpenAI-style) requests
 * into {@code GenerateContentRequest}s ({@link dev.sluice.plugin.gemini.GeminiRequestWriter},
 * {@link dev.sluice.plugin.gemini.SchemaSanitizer}), answers and stream fragments back
 * ({@link dev.sluice.plugin.gemini.GeminiResponseReader},
 * {@link dev.sluice.plugin.gemini.StreamTranslator}, {@link dev.sluice.plugin.gemini.GeminiSseStream}),
 * and Google error bodies into canonical errors with {@code RetryInfo} retry hints
 * ({@link dev.sluice.plugin.gemini.GeminiErrorReader}). Gemini CLI's Google login
 * ({@link dev.sluice.plugin.gemini.GeminiLogin}, issue 36) makes {@code oauth} connections, which
 * the same executor serves through Google's Code Assist backend: the same translation wrapped in
 * its envelope ({@link dev.sluice.plugin.gemini.CodeAssist}), with the account's project found once
 * and stored ({@link dev.sluice.plugin.gemini.CodeAssistProjects}). The plugin depends on the SPI
 * and the shared toolkit (JSON, SSE framing) alone.
 */
package dev.sluice.plugin.gemini;
