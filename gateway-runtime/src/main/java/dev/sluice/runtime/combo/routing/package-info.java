/**
 * Combo routing (SPEC §13): which of a combo's targets may serve now ({@code TargetScan}), in
 * what order (the combo's strategy), when to wait out a short cooldown instead of answering 429
 * ({@code ComboWait}), and what the strategies observe of each target ({@code ComboStats}). It sits
 * beside the combos it routes, below the pipeline's entry point ({@code entry}) and above the
 * routing core, whose {@link dev.sluice.runtime.routing.Walk} it calls down into for each target;
 * the core never depends on it.
 */
package dev.sluice.runtime.combo.routing;
