/**
 * Declarative resilience contributions: status-restatement rules (SPEC §16.1), provider
 * error-classification rules (§16.2) and egress-bucketing hooks (§16.3), with the failure
 * reasons and lock scopes they use.
 */
package dev.sluice.api.rules;
