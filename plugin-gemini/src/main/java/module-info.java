/** Sluice provider plugin for Google Gemini ({@code generateContent} / {@code streamGenerateContent}). */
module sluice.plugin.gemini {
    requires sluice.api;
    requires sluice.toolkit;

    provides dev.sluice.api.ProviderPlugin with dev.sluice.plugin.gemini.GeminiPlugin;
}
