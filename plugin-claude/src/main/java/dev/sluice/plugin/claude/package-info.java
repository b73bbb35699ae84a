/**
 * The Anthropic Claude provider: an executor for the Messages API ({@code POST {base}/v1/messages})
 * that translates canonical (OpenAI-style) requests into Messages requests and Messages answers,
 * complete or streamed event by event, back into canonical answers and chunks. Request
 * translation, response translation, stream translation, headers and errors each have their own
 * class; a small JSON reader/writer keeps the plugin free of dependencies beyond the SPI. OAuth
 * connections renew their access token through a configurable token endpoint
 * ({@code OAuthRefresher}). The subscription lane (SPEC §9) is not here yet.
 */
package dev.sluice.plugin.claude;
