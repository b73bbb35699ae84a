package dev.sluice.api.upstream;

/** Kinds of transport failure (SPEC FC-1 {@code network_error} / {@code timeout}). */
public enum TransportErrorKind {
    /** Connection refused or host unreachable. */
    CONNECT_FAILED,
    /** Connection reset or closed before a complete response. */
    CONNECTION_RESET,
    /** No response within the deadline. */
    TIMEOUT,
    /** The host name could not be resolved. */
    DNS,
    /** The upstream's answer was not valid for the protocol (e.g. unparseable JSON on success). */
    PROTOCOL,
    /** Any other I/O failure. */
    OTHER
}
