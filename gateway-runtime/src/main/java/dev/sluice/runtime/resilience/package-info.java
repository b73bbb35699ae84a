/**
 * The resilience core, plain Java driven by an injected clock and independent of the HTTP layer.
 * {@link dev.sluice.runtime.resilience.FailureClassifier} turns an upstream failure into a
 * {@link dev.sluice.runtime.resilience.Verdict} (SPEC §5); every mechanism acts on verdicts and
 * never re-parses responses.
 */
package dev.sluice.runtime.resilience;
