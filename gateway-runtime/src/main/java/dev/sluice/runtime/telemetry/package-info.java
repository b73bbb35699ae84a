/**
 * What an operator can watch: Prometheus metrics ({@link dev.sluice.runtime.telemetry.SluiceMetrics},
 * Micrometer's Prometheus registry), the JSON access log ({@link dev.sluice.runtime.telemetry.AccessLog})
 * and usage accounting, all fed once per client request by {@link dev.sluice.runtime.telemetry.Telemetry}
 * from a {@link dev.sluice.runtime.telemetry.RequestRecord} the HTTP layer fills in, and once per
 * upstream attempt from the attempt log's rows. Nothing here is on the routing path's decisions: it
 * only observes, never blocks a request (usage is counted in memory per minute and written by a
 * timer, {@link dev.sluice.runtime.telemetry.UsageMeter}) and never sees a key or a credential.
 */
package dev.sluice.runtime.telemetry;
