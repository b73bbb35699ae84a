/**
 * The upstream HTTP view plugins get from the runtime: requests, responses, and the two kinds of
 * failure an attempt can end in (an error status with its headers and body, or a transport
 * failure).
 */
package dev.sluice.api.upstream;
