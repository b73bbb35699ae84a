/**
 * Combo executors (issue 34): the strategies that are not an ordering of the targets but send
 * requests of their own — {@code context-relay} (a summary before a conversation moves to a
 * smaller window), {@code pipeline} (steps in turn) and {@code fusion} (a panel in parallel and a
 * judge). They sit above the combo router: every upstream call they make is one combo request run
 * by {@link dev.sluice.runtime.combo.routing.ComboRouter#run} over a combo derived from the
 * configured one (a step's target and its fallbacks, a panel member, the judge), so failover,
 * cooldown waits, the emergency fallback and the diagnostics are the router's, unchanged.
 * {@link dev.sluice.runtime.combo.flow.ComboFlows} is what the pipeline's entry point
 * ({@code entry.RequestRouter}) sees of the combos: it finds the combo a model names and runs it
 * down the request's {@link dev.sluice.runtime.routing.Walk}.
 */
package dev.sluice.runtime.combo.flow;
