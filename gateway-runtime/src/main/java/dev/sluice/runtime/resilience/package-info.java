/**
 * The resilience core, plain Java driven by an injected clock and independent of the HTTP layer.
 * {@link dev.sluice.runtime.resilience.classify.FailureClassifier} turns an upstream failure into a
 * {@link dev.sluice.runtime.resilience.classify.Verdict} (SPEC §5); every mechanism acts on verdicts and
 * never re-parses responses. The provider breakers
 * ({@link dev.sluice.runtime.resilience.breaker.CircuitBreakers}) are a state machine of record states
 * checked against a table of legal moves. The core may use the store, but the store never sees
 * the core's types: what the core persists it maps to the store's plain rows itself.
 */
package dev.sluice.runtime.resilience;
