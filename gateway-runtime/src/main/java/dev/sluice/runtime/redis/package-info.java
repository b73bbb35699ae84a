/**
 * The hot resilience state several instances share through Redis or Valkey (SPEC NF-6,
 * {@code SLUICE_REDIS_URL}): concurrency permits with an expiry renewed by a heartbeat,
 * connection cooldown, model lockout and provider window announcements, breakers' open state with
 * one half-open probe over all instances, and the pub/sub channel on which instances announce the
 * changes they keep in memory (queue pauses, learned pacing, resets, clears). Each implements an interface of {@code runtime.resilience}, whose in-memory default
 * serves a single instance; this package depends on resilience, never the reverse. Every call is
 * bounded by a short timeout and every key, prefixed {@code sluice:}, expires. The boards keep a
 * {@code Mirror} of what was announced, so requests read no Redis key (issue 26), and the client is a
 * breaker of its own: the first call that cannot reach Redis switches the instance to its local
 * fallback until a 1 s probe finds it again (issue 37).
 */
package dev.sluice.runtime.redis;
