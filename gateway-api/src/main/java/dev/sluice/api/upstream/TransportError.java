package dev.sluice.api.upstream;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.ProtocolException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.Locale;

/**
 * The upstream never produced a proper answer.
 *
 * @param kind what kind of failure
 * @param message a description (never contains credentials)
 */
public record TransportError(TransportErrorKind kind, String message) implements UpstreamFailure {

    /** Validates the fields. */
    public TransportError {
        requireNonNull(kind, "kind is null");
        message = message == null ? kind.name().toLowerCase(Locale.ROOT) : message;
    }

    /**
     * Classifies an I/O exception from {@link UpstreamHttp#send} or from reading a body.
     *
     * @param e the exception
     * @return the transport error
     */
    public static TransportError of(IOException e) {
        TransportErrorKind kind;
        if (e instanceof UnknownHostException) {
            kind = TransportErrorKind.DNS;
        } else if (e instanceof ConnectException || e instanceof NoRouteToHostException) {
            kind = TransportErrorKind.CONNECT_FAILED;
        } else if (e instanceof ProtocolException) {
            // the upstream broke the protocol (e.g. a stream event past the gateway's size limit)
            kind = TransportErrorKind.PROTOCOL;
        } else if (e instanceof SocketTimeoutException
                || e instanceof InterruptedIOException) {
            kind = TransportErrorKind.TIMEOUT;
        } else {
            String m = String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT);
            if (m.contains("reset") || m.contains("closed") || m.contains("eof") || m.contains("broken pipe")) {
                kind = TransportErrorKind.CONNECTION_RESET;
            } else if (m.contains("timed out") || m.contains("timeout")) {
                kind = TransportErrorKind.TIMEOUT;
            } else if (m.contains("refused")) {
                kind = TransportErrorKind.CONNECT_FAILED;
            } else {
                kind = TransportErrorKind.OTHER;
            }
        }
        return new TransportError(kind, e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
    }

    @Override
    public String describe() {
        return "transport failure (" + kind.name().toLowerCase(Locale.ROOT) + "): " + message;
    }
}
