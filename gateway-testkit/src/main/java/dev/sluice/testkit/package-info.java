/**
 * Test fixtures for Sluice and plugin authors: {@link dev.sluice.testkit.MockUpstream}, a real
 * HTTP/1.1 fake of an OpenAI-compatible upstream on a loopback ephemeral port that tests script
 * with {@link dev.sluice.testkit.MockResponse}s and inspect through
 * {@link dev.sluice.testkit.RecordedRequest}s; {@link dev.sluice.testkit.SseEvents}, the OpenAI and
 * Anthropic stream frames that {@link dev.sluice.testkit.MockResponse#stream()} plays with exact
 * timing (stalls, keep-alives, early EOF, reasoning pauses, trickles); and
 * {@link dev.sluice.testkit.TestClock}. The
 * package depends on the JDK only, so any module's tests can use it.
 */
package dev.sluice.testkit;
