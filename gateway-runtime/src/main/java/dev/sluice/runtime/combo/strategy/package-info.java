/**
 * The built-in combo strategies (SPEC §13 CO-2) and {@link dev.sluice.runtime.combo.strategy.ComboStrategies},
 * the registry that holds them together with the strategies plugins contribute. Each strategy is
 * one small class that orders a request's eligible targets; strategies that remember something
 * between requests (round-robin's position, strict-random's shuffle bag) keep it per combo name
 * inside their instance, so each registry has its own state.
 */
package dev.sluice.runtime.combo.strategy;
