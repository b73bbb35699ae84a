/**
 * Model discovery (issue 32): for each enabled connection whose provider answers OpenAI's
 * {@code GET {baseUrl}/models}, the ids the upstream lists are read in the background (on
 * creation, on {@code POST /api/providers/{id}/test}, every {@code upstream.modelDiscoveryIntervalMs})
 * and kept in memory and with the connection's row, so {@code GET /v1/models} lists them without
 * calling anyone. A discovery never runs on a request thread and never fails a request.
 */
package dev.sluice.runtime.discovery;
