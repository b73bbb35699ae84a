/**
 * Plugin entry point and contributions: {@link dev.sluice.api.ProviderPlugin} is the one service a
 * plugin provides; through it the plugin contributes provider descriptors, executors, status
 * restatement rules, error-classification rules and egress-bucketing hooks. The runtime hands
 * executors a {@link dev.sluice.api.HostContext} with everything they may use (HTTP client,
 * clock, settings view, logger); plugins keep no static state and start no threads.
 */
package dev.sluice.api;
