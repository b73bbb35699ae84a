/**
 * The one upstream HTTP client ({@link dev.sluice.runtime.upstream.HelidonUpstreamHttp}, Helidon
 * WebClient: keep-alive pool, TCP_NODELAY, bounded timeouts) that every executor, built-in or
 * plugin, sends through.
 */
package dev.sluice.runtime.upstream;
