package dev.sluice.runtime.upstream;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.util.Locale;

/**
 * The exceptions of {@code java.net.http} turned into the ones {@link HelidonUpstreamHttp} throws
 * for the same failure, so that {@code TransportError.of} gives the same kind on either client.
 */
final class JdkTransportErrors {

    private JdkTransportErrors() {
    }

    /** The exception {@link HelidonUpstreamHttp} would throw for the failure {@code e}. */
    static IOException normalize(Throwable e) {
        if (e instanceof HttpConnectTimeoutException) {
            return withCause(new SocketTimeoutException("connect timed out"), e);
        }
        if (e instanceof HttpTimeoutException) {
            return withCause(new SocketTimeoutException("read timed out waiting for the response headers"), e);
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof UnresolvedAddressException || t instanceof UnknownHostException) {
                return withCause(new UnknownHostException("cannot resolve the upstream host"), e);
            }
        }
        if (e instanceof ConnectException ce) {
            return ce.getMessage() == null ? withCause(new ConnectException("connection refused"), e) : ce;
        }
        if (e instanceof IOException io) {
            String m = String.valueOf(io.getMessage()).toLowerCase(Locale.ROOT);
            // the JDK's words for a peer that closed before or inside the response
            if (m.contains("received no bytes") || m.contains("fixed content-length") || m.contains("chunked")) {
                return new IOException("upstream connection closed: " + io.getMessage(), io);
            }
            return io;
        }
        if (e instanceof RuntimeException re) {
            return HelidonUpstreamHttp.asIo(re);
        }
        return new IOException("upstream connection closed: " + e, e);
    }

    private static IOException withCause(IOException io, Throwable cause) {
        io.initCause(cause);
        return io;
    }
}
