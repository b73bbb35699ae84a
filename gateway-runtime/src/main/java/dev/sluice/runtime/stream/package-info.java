/**
 * Stream watchdogs (SPEC §15): a stream is read on a pump thread of its own so that the request's
 * thread can wait for it with a deadline — for the first useful event (readiness, ST-0), for model
 * output after it (stall, ST-1), for a minimum output rate (throughput, ST-2/ST-3), for the
 * attempt's hard deadline — and keep a quiet client connection alive meanwhile. Protocol-neutral:
 * the HTTP layer renders through a {@link dev.sluice.runtime.stream.StreamRelay.Sink}. The timer
 * decisions are pure functions of an injected nanosecond clock.
 */
package dev.sluice.runtime.stream;
