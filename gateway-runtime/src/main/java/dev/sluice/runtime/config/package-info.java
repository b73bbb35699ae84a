/**
 * Typed settings: {@link dev.sluice.runtime.config.SluiceConfig} is read once at start-up from
 * {@code conf/sluice.yaml} and the SH-5 environment overrides, with every default in one place.
 */
package dev.sluice.runtime.config;
