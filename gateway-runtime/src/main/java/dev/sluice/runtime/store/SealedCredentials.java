package dev.sluice.runtime.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.List;

/**
 * The sealed values of {@code provider_connections} as a whole (SEC-3): whether there are any
 * (then a missing key must not be replaced by a new one), and their re-encryption under a new key.
 */
public final class SealedCredentials {

    private SealedCredentials() {
    }

    /**
     * Whether any connection holds sealed credentials (then a missing key file must not be
     * replaced by a new key: the stored credentials could never be read again).
     *
     * @param db the database
     * @return true when credentials are stored
     */
    public static boolean present(Database db) {
        return db.withConnection(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM provider_connections"
                    + " WHERE api_key_enc IS NOT NULL OR oauth_access_enc IS NOT NULL OR base_url LIKE 'v1:%'"
                    + " OR proxy_url LIKE 'v1:%' LIMIT 1");
                    ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        });
    }

    /**
     * Re-encrypts every sealed value (credentials, and URLs with a password) from one key to
     * another, in one transaction: all or nothing (SEC-3 key rotation; run with the server stopped).
     *
     * @param db the database
     * @param from the current key
     * @param to the new key
     * @return how many values were re-encrypted
     * @throws IllegalStateException when a value does not open with the current key (nothing changed)
     */
    public static int reseal(Database db, CredentialSealer from, CredentialSealer to) {
        String[] columns = {"api_key_enc", "oauth_access_enc", "oauth_refresh_enc", "base_url", "proxy_url"};
        return db.inTransaction(c -> {
            int n = 0;
            List<String[]> rows = new java.util.ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT id, " + String.join(", ", columns) + " FROM provider_connections");
                    ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String[] r = new String[columns.length + 1];
                    for (int i = 0; i < r.length; i++) {
                        r[i] = rs.getString(i + 1);
                    }
                    rows.add(r);
                }
            }
            for (String[] r : rows) {
                for (int i = 0; i < columns.length; i++) {
                    String v = r[i + 1];
                    if (v == null || !v.startsWith("v1:")) {
                        continue;
                    }
                    try (PreparedStatement ps = c.prepareStatement("UPDATE provider_connections SET " + columns[i] + "=? WHERE id=?")) {
                        ps.setString(1, to.seal(from.open(v)));
                        ps.setString(2, r[0]);
                        ps.executeUpdate();
                    }
                    n++;
                }
            }
            return n;
        });
    }
}
