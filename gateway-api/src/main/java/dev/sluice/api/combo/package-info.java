/**
 * Combo strategies (SPEC §13 CO-2): how a combo orders its eligible targets for one request.
 * Plugins may contribute strategies through {@code ProviderPlugin.comboStrategies()}.
 */
package dev.sluice.api.combo;
