/**
 * Combo routing (SPEC §13): which of a combo's targets may serve now ({@code TargetScan}), in
 * what order (the combo's strategy), when to wait out a short cooldown instead of answering 429
 * ({@code ComboWait}), and what the strategies observe of each target ({@code ComboStats}). It sits
 * beside the combos it routes and above the routing core: the pipeline's entry point reaches it
 * through {@link dev.sluice.runtime.routing.ComboRouting}, so the core never depends on it.
 */
package dev.sluice.runtime.combo.routing;
