package dev.sluice.runtime.redis;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Where the hot resilience state several instances share lives (SPEC NF-6): a Redis or Valkey
 * server ({@code SLUICE_REDIS_URL}, {@code redis://[:password@]host:port[/db]}), or none (each
 * instance keeps that state in memory, the default). The password is kept apart from the URL, so
 * that {@link #url()} — what logs, {@code doctor} and the health view show — never carries it.
 *
 * @param url {@code redis://host:port/db} without credentials, or null when not configured
 * @param host the server's host
 * @param port the server's port
 * @param database the logical database, 0–15 on a default server
 * @param password the password ({@code AUTH}), or null
 * @param permitTtl how long a permit of a request whose instance stopped renewing it holds on
 * @param timeout the bound of every Redis call
 */
public record RedisSettings(String url, String host, int port, int database, String password, Duration permitTtl, Duration timeout) {

    /** No Redis: hot state stays in each instance's memory. */
    public static final RedisSettings NONE = new RedisSettings(null, null, 0, 0, null, null, null);
    /**
     * The default expiry of a permit nobody renews (issue 37: a dead instance's permits free within
     * 5 s; a heartbeat renews live ones every fifth of it, so a holder paused for up to four fifths
     * — 4 s — keeps them).
     */
    public static final Duration DEFAULT_PERMIT_TTL = Duration.ofSeconds(5);
    /** The shortest permit expiry accepted: the heartbeat must fit well inside it. */
    public static final Duration MIN_PERMIT_TTL = Duration.ofSeconds(1);
    /** The bound of every Redis call: a request never waits longer on Redis than this per call. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(250);

    /** Validates. */
    public RedisSettings {
        if (url != null) {
            if (host == null || host.isBlank() || port < 1 || port > 65_535 || database < 0) {
                throw new IllegalArgumentException("redis settings need a host, a port 1–65535 and a database ≥ 0");
            }
            if (permitTtl == null || permitTtl.compareTo(MIN_PERMIT_TTL) < 0) {
                throw new IllegalArgumentException("the redis permit expiry must be at least " + MIN_PERMIT_TTL.toMillis() + " ms");
            }
            if (timeout == null || timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("the redis timeout must be positive");
            }
        }
    }

    /**
     * Reads a configured URL.
     *
     * @param url {@code redis://[[user]:password@]host[:port][/db]}, or null/blank for none
     * @param permitTtlMs the permit expiry in ms, or null for {@link #DEFAULT_PERMIT_TTL}
     * @param setting the setting's name, for messages
     * @return the settings
     * @throws IllegalArgumentException when the URL is not a valid {@code redis://} URL (the message shows no password)
     */
    public static RedisSettings of(String url, Long permitTtlMs, String setting) {
        if (url == null || url.isBlank()) {
            return NONE;
        }
        String u = url.strip();
        URI uri;
        try {
            uri = new URI(u);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(setting + " must be redis://[:password@]host:port[/db], got " + mask(u));
        }
        if (!"redis".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null) {
            throw new IllegalArgumentException(setting + " must be redis://[:password@]host:port[/db] (Redis or Valkey; TLS is not"
                    + " supported), got " + mask(u));
        }
        if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw new IllegalArgumentException(setting + " takes no query or fragment, got " + mask(u));
        }
        int port = uri.getPort() < 0 ? 6379 : uri.getPort();
        int db = 0;
        String path = uri.getRawPath();
        if (path != null && !path.isEmpty() && !path.equals("/")) {
            try {
                db = Integer.parseInt(path.substring(1));
            } catch (NumberFormatException e) {
                db = -1;
            }
            if (db < 0) {
                throw new IllegalArgumentException(setting + ": the path must be a database number (/0, /1 …), got " + mask(u));
            }
        }
        String password = null;
        String info = uri.getRawUserInfo();
        if (info != null) {
            int colon = info.indexOf(':');
            if (colon < 0 || colon > 0) {
                // an ACL user name is not supported: only the default user's password (AUTH <password>)
                throw new IllegalArgumentException(setting + " takes a password only (redis://:password@host:port), not a user name; got "
                        + mask(u));
            }
            password = URLDecoder.decode(info.substring(colon + 1), StandardCharsets.UTF_8);
            password = password.isEmpty() ? null : password;
        }
        Duration ttl = permitTtlMs == null ? DEFAULT_PERMIT_TTL : Duration.ofMillis(permitTtlMs);
        if (ttl.compareTo(MIN_PERMIT_TTL) < 0) {
            throw new IllegalArgumentException("the redis permit expiry must be at least " + MIN_PERMIT_TTL.toMillis() + " ms, got "
                    + permitTtlMs);
        }
        String host = uri.getHost();
        String shown = "redis://" + host + ":" + port + "/" + db;
        return new RedisSettings(shown, host.startsWith("[") ? host.substring(1, host.length() - 1) : host, port, db, password, ttl,
                DEFAULT_TIMEOUT);
    }

    /** @return true when the hot state is shared through Redis */
    public boolean configured() {
        return url != null;
    }

    /**
     * The same settings with another call timeout (tests of an unreachable server).
     *
     * @param t the bound of every call
     * @return a copy
     */
    public RedisSettings withTimeout(Duration t) {
        return new RedisSettings(url, host, port, database, password, permitTtl, t);
    }

    @Override
    public String toString() {
        return configured() ? "RedisSettings[" + url + ", password=" + (password == null ? "none" : "***") + ", permitTtl="
                + permitTtl.toMillis() + " ms]" : "RedisSettings[none]";
    }

    /**
     * A Redis URL as it may be shown: the password in its user-info part is replaced by {@code ***}.
     *
     * @param url any URL
     * @return the URL without its password
     */
    public static String mask(String url) {
        if (url == null) {
            return null;
        }
        int scheme = url.indexOf("//");
        int at = url.lastIndexOf('@');
        if (scheme >= 0 && at > scheme) {
            return url.substring(0, scheme + 2) + "***" + url.substring(at);
        }
        return url;
    }
}
