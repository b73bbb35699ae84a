/**
 * The web layer (Helidon SE): one {@link io.helidon.webserver.http.HttpService} per endpoint
 * group, handlers as private methods, and one {@link dev.sluice.runtime.http.ErrorMapper} that
 * turns every exception into the error envelope of the route (OpenAI's, or Anthropic's on
 * {@code /v1/messages}). Handlers throw {@link dev.sluice.runtime.http.ApiException}; they never
 * format errors themselves.
 */
package dev.sluice.runtime.http;
