package dev.sluice.runtime.store;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Where the durable records live (SPEC NF-6): the embedded SQLite file of the data folder (the
 * default), or a PostgreSQL database shared by several instances ({@code SLUICE_DATABASE_URL}).
 * Credentials are taken out of the URL when it carries them ({@code user:password@host} or
 * {@code ?user=…&password=…}), so that the URL kept here, shown and logged never holds a
 * password; {@code SLUICE_DATABASE_USER} / {@code SLUICE_DATABASE_PASSWORD} beat the URL's.
 *
 * @param url the PostgreSQL JDBC URL without credentials, or null for SQLite
 * @param user the database user, or null (the driver's default)
 * @param password the password, or null
 */
public record DatabaseSettings(String url, String user, String password) {

    /** The JDBC URL prefix accepted. */
    public static final String POSTGRESQL_PREFIX = "jdbc:postgresql:";

    /** The embedded SQLite database of the data folder. */
    public static final DatabaseSettings SQLITE = new DatabaseSettings(null, null, null);

    /** Validates: a URL is a PostgreSQL JDBC URL without credentials. */
    public DatabaseSettings {
        if (url != null && (!url.startsWith(POSTGRESQL_PREFIX) || !stripCredentials(url).equals(url))) {
            throw new IllegalArgumentException("database url must be a PostgreSQL JDBC URL without credentials, got " + mask(url));
        }
    }

    /**
     * Reads a configured URL and credentials.
     *
     * @param url the URL as configured, or null/blank for SQLite
     * @param user the configured user, or null (then the URL's)
     * @param password the configured password, or null (then the URL's)
     * @param setting the setting's name, for the message
     * @return the settings
     * @throws IllegalArgumentException when the URL is not {@code jdbc:postgresql:}
     */
    public static DatabaseSettings of(String url, String user, String password, String setting) {
        if (url == null || url.isBlank()) {
            if (user != null || password != null) {
                throw new IllegalArgumentException("SLUICE_DATABASE_USER / SLUICE_DATABASE_PASSWORD (database.user / database.password)"
                        + " are set but SLUICE_DATABASE_URL (database.url) is not: set the PostgreSQL URL too, or unset them to keep SQLite");
            }
            return SQLITE;
        }
        String u = url.strip();
        if (!u.toLowerCase(Locale.ROOT).startsWith(POSTGRESQL_PREFIX)) {
            throw new IllegalArgumentException(setting + " must be a PostgreSQL JDBC URL (jdbc:postgresql://host:port/database),"
                    + " got " + mask(u) + "; leave it unset to use the embedded SQLite database");
        }
        u = POSTGRESQL_PREFIX + u.substring(POSTGRESQL_PREFIX.length());
        String[] embedded = credentials(u);
        return new DatabaseSettings(stripCredentials(u), user != null ? user : embedded[0], password != null ? password : embedded[1]);
    }

    /** @return true when the records live in PostgreSQL */
    public boolean postgres() {
        return url != null;
    }

    /** @return {@code sqlite} or {@code postgresql} */
    public String kind() {
        return postgres() ? "postgresql" : "sqlite";
    }

    @Override
    public String toString() {
        return postgres() ? "DatabaseSettings[postgresql " + url + ", user=" + user + ", password=" + (password == null ? "none" : "***")
                + "]" : "DatabaseSettings[sqlite]";
    }

    /**
     * A URL as it may be shown: a password, in the user-info part or as a parameter, is replaced
     * by {@code ***}.
     *
     * @param url any URL
     * @return the URL without its password
     */
    public static String mask(String url) {
        if (url == null) {
            return null;
        }
        String masked = url.replaceAll("(?i)([?&;]password=)[^&;#]*", "$1***");
        int scheme = masked.indexOf("//");
        if (scheme >= 0) {
            int end = authorityEnd(masked, scheme + 2);
            int at = masked.lastIndexOf('@', end - 1);
            if (at > scheme) {
                int colon = masked.indexOf(':', scheme + 2);
                if (colon >= 0 && colon < at) {
                    masked = masked.substring(0, colon + 1) + "***" + masked.substring(at);
                }
            }
        }
        return masked;
    }

    private static int authorityEnd(String url, int start) {
        for (int i = start; i < url.length(); i++) {
            char ch = url.charAt(i);
            if (ch == '/' || ch == '?' || ch == '#') {
                return i;
            }
        }
        return url.length();
    }

    /** The user and password a URL carries: user-info first, then the {@code user} / {@code password} parameters. */
    private static String[] credentials(String url) {
        String[] out = new String[2];
        int scheme = url.indexOf("//");
        if (scheme >= 0) {
            int end = authorityEnd(url, scheme + 2);
            int at = url.lastIndexOf('@', end - 1);
            if (at > scheme) {
                String info = url.substring(scheme + 2, at);
                int colon = info.indexOf(':');
                out[0] = decode(colon < 0 ? info : info.substring(0, colon));
                out[1] = colon < 0 ? null : decode(info.substring(colon + 1));
            }
        }
        int q = url.indexOf('?');
        if (q >= 0) {
            for (String p : url.substring(q + 1).split("&")) {
                int eq = p.indexOf('=');
                String name = eq < 0 ? p : p.substring(0, eq);
                String value = eq < 0 ? "" : decode(p.substring(eq + 1));
                if (name.equalsIgnoreCase("user") && out[0] == null) {
                    out[0] = value;
                } else if (name.equalsIgnoreCase("password") && out[1] == null) {
                    out[1] = value;
                }
            }
        }
        return out;
    }

    /** The URL without user-info and without the {@code user} / {@code password} parameters. */
    private static String stripCredentials(String url) {
        String u = url;
        int scheme = u.indexOf("//");
        if (scheme >= 0) {
            int end = authorityEnd(u, scheme + 2);
            int at = u.lastIndexOf('@', end - 1);
            if (at > scheme) {
                u = u.substring(0, scheme + 2) + u.substring(at + 1);
            }
        }
        int q = u.indexOf('?');
        if (q < 0) {
            return u;
        }
        List<String> kept = new ArrayList<>();
        for (String p : u.substring(q + 1).split("&")) {
            String name = p.contains("=") ? p.substring(0, p.indexOf('=')) : p;
            if (!p.isEmpty() && !name.equalsIgnoreCase("user") && !name.equalsIgnoreCase("password")) {
                kept.add(p);
            }
        }
        return u.substring(0, q) + (kept.isEmpty() ? "" : "?" + String.join("&", kept));
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }
}
