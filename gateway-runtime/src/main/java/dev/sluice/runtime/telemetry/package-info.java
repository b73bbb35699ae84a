/**
 * What an operator can watch: Prometheus metrics ({@link dev.sluice.runtime.telemetry.SluiceMetrics},
 * Micrometer's Prometheus registry), the JSON access log ({@link dev.sluice.runtime.telemetry.AccessLog})
 * and usage accounting, all fed once per client request by {@link dev.sluice.runtime.telemetry.Telemetry}
 * from a {@link dev.sluice.runtime.telemetry.RequestRecord} the HTTP layer fills in, and once per
 * upstream attempt from the attempt log's rows. {@link dev.sluice.runtime.telemetry.AttemptLog} decides
 * which attempts become {@code proxy_logs} rows (failures, egress IP news, a sample of successes) and
 * {@link dev.sluice.runtime.telemetry.RecentRequests} keeps the last requests and attempts in memory
 * for {@code GET /api/logs} ({@link dev.sluice.runtime.telemetry.RequestHistory}). Nothing here is on
 * the routing path's decisions: it only observes, never blocks a request (usage is counted in memory
 * per minute and written by a timer, {@link dev.sluice.runtime.telemetry.UsageMeter}) and never sees
 * a key or a credential.
 */
package dev.sluice.runtime.telemetry;
