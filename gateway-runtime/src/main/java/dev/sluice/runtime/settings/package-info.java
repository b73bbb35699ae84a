/**
 * The resilience settings model of SPEC §18: the JSON shape of
 * {@link dev.sluice.runtime.resilience.ResilienceSettings}, one schema per leaf (type and bounds)
 * plus cross-field rules, the layers of SE-2 (built-in default &lt; {@code conf/sluice.yaml} &lt;
 * environment &lt; persisted operator patches) and the service that serves and patches the
 * effective tree without restart. Values from the API that break a rule are refused naming the
 * dotted path; values from the file, the environment or an old persisted document are clamped or
 * dropped with one warning each, so a bad setting never stops start-up.
 */
package dev.sluice.runtime.settings;
