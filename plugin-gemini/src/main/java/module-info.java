/**
 * Sluice provider plugin for Google Gemini ({@code generateContent} / {@code streamGenerateContent}),
 * API keys and Gemini CLI's Google login (Code Assist backend).
 */
module sluice.plugin.gemini {
    requires sluice.api;
    requires sluice.toolkit;

    provides dev.sluice.api.ProviderPlugin with dev.sluice.plugin.gemini.GeminiPlugin;
}
