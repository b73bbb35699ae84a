/**
 * Key handling (SPEC SEC-1..3): gateway and admin keys are generated here, stored only as
 * SHA-256 hashes and compared in constant time; provider credentials are sealed with AES-GCM
 * before they reach the database.
 */
package dev.sluice.runtime.security;
