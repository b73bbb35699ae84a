package dev.sluice.runtime.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.api.ProviderClass;
import dev.sluice.runtime.security.SecretBox;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Provider connections on SQLite, credentials sealed at rest (SPEC DM-1, SEC-2, SEC-3, RQ-9). */
class JdbcConnectionStoreTest {

    static final String KEY = Base64.getEncoder().encodeToString(new byte[32]);
    static final String OTHER_KEY = Base64.getEncoder().encodeToString("0123456789abcdef0123456789abcdef".getBytes());
    static final long T0 = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();

    @TempDir
    Path dir;

    private final AtomicLong now = new AtomicLong(T0);
    private final InstantSource clock = () -> Instant.ofEpochMilli(now.get());
    private Database db;
    private JdbcConnectionStore store;

    @BeforeEach
    void open() {
        db = Database.open(dir);
        store = new JdbcConnectionStore(db, SecretBox.fromBase64(KEY), clock);
    }

    @AfterEach
    void close() {
        db.close();
    }

    static NewConnection apiKey(String provider, String name, String apiKey, int priority) {
        return new NewConnection(provider, name, ProviderClass.APIKEY, apiKey, null, null, priority, true, null, null, false,
                null, null, null);
    }

    static NewConnection full() {
        return new NewConnection("claude", "work account", ProviderClass.OAUTH, null,
                new OAuthTokens("oauth-access-SECRET", "oauth-refresh-SECRET", 1_900_000_000_000L),
                "https://proxy.example/v1", 3, false, 4, "{\"maxConcurrent\":2}", true, "{\"lowPriorityMode\":true}",
                "10.0.0.2", "http://user:pw@proxy:3128");
    }

    @Test
    void urlsWithAPasswordAreSealedAtRestAndOthersStayReadable_SEC3() throws Exception {
        Connection proxied = store.create(full());
        NewConnection withUserInfo = new NewConnection("custom", "basic", ProviderClass.APIKEY, "k", null,
                "https://user:base-SECRET@api.example/v1", 1, true, null, null, false, null, null, null);
        Connection basic = store.create(withUserInfo);
        try (var c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(Database.FILE_NAME).toAbsolutePath());
                PreparedStatement ps = c.prepareStatement("SELECT id, base_url, proxy_url FROM provider_connections")) {
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String row = rs.getString(2) + " " + rs.getString(3);
                    assertThat(row).doesNotContain("pw@").doesNotContain("base-SECRET");
                    if (rs.getString(1).equals(proxied.id())) {
                        assertThat(rs.getString(2)).as("no password: readable").isEqualTo("https://proxy.example/v1");
                        assertThat(rs.getString(3)).startsWith("v1:");
                    } else {
                        assertThat(rs.getString(2)).startsWith("v1:");
                    }
                }
            }
        }
        JdbcConnectionStore reopened = new JdbcConnectionStore(db, SecretBox.fromBase64(KEY), clock);
        assertThat(reopened.find(proxied.id()).orElseThrow().proxyUrl()).isEqualTo("http://user:pw@proxy:3128");
        assertThat(reopened.find(basic.id()).orElseThrow().baseUrl()).isEqualTo("https://user:base-SECRET@api.example/v1");
        assertThat(SealedCredentials.present(db)).isTrue();

        // a row an older release wrote in plaintext is sealed when the store opens
        db.withConnection(c -> c.createStatement().executeUpdate("UPDATE provider_connections SET proxy_url='http://old:plain-SECRET@p:1'"
                + " WHERE id='" + proxied.id() + "'"));
        JdbcConnectionStore again = new JdbcConnectionStore(db, SecretBox.fromBase64(KEY), clock);
        assertThat(again.find(proxied.id()).orElseThrow().proxyUrl()).isEqualTo("http://old:plain-SECRET@p:1");
        String raw = db.withConnection(c -> {
            try (ResultSet rs = c.createStatement().executeQuery("SELECT proxy_url FROM provider_connections WHERE id='" + proxied.id() + "'")) {
                rs.next();
                return rs.getString(1);
            }
        });
        assertThat(raw).startsWith("v1:").doesNotContain("plain-SECRET");
    }

    private Map<String, String> rawSecrets(String id) throws Exception {
        try (var c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(Database.FILE_NAME).toAbsolutePath());
                PreparedStatement ps = c.prepareStatement(
                        "SELECT api_key_enc, oauth_access_enc, oauth_refresh_enc FROM provider_connections WHERE id=?")) {
            ps.setString(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                Map<String, String> m = new LinkedHashMap<>();
                m.put("api_key_enc", rs.getString(1));
                m.put("oauth_access_enc", rs.getString(2));
                m.put("oauth_refresh_enc", rs.getString(3));
                return m;
            }
        }
    }

    @Test
    void createdConnectionHasEveryFieldAnIdAndAnActiveState_DM1() {
        Connection c = store.create(full());

        assertThat(c.id()).isNotBlank();
        assertThat(c.seq()).isEqualTo(1);
        assertThat(c.provider()).isEqualTo("claude");
        assertThat(c.name()).isEqualTo("work account");
        assertThat(c.authType()).isEqualTo(ProviderClass.OAUTH);
        assertThat(c.apiKey()).isNull();
        assertThat(c.oauth()).isEqualTo(new OAuthTokens("oauth-access-SECRET", "oauth-refresh-SECRET", 1_900_000_000_000L));
        assertThat(c.baseUrl()).isEqualTo("https://proxy.example/v1");
        assertThat(c.priority()).isEqualTo(3);
        assertThat(c.enabled()).isFalse();
        assertThat(c.maxConcurrent()).isEqualTo(4);
        assertThat(c.rateLimitOverridesJson()).isEqualTo("{\"maxConcurrent\":2}");
        assertThat(c.rateLimitProtection()).isFalse();
        assertThat(c.disableCooling()).isTrue();
        assertThat(c.providerSpecificDataJson()).isEqualTo("{\"lowPriorityMode\":true}");
        assertThat(c.localAddress()).isEqualTo("10.0.0.2");
        assertThat(c.proxyUrl()).isEqualTo("http://user:pw@proxy:3128");
        assertThat(c.state()).isEqualTo(ConnectionState.ACTIVE);
        assertThat(c.createdAt()).isEqualTo(T0);
        assertThat(c.updatedAt()).isEqualTo(T0);
        assertThat(store.find(c.id())).contains(c);
    }

    @Test
    void apiKeyConnectionWithoutOptionalsStoresNulls_DM1() {
        Connection c = store.create(apiKey("openai", "main", "sk-abc", 1));

        assertThat(c.apiKey()).isEqualTo("sk-abc");
        assertThat(c.oauth()).isNull();
        assertThat(c.baseUrl()).isNull();
        assertThat(c.maxConcurrent()).isNull();
        assertThat(c.rateLimitOverridesJson()).isNull();
        assertThat(c.enabled()).isTrue();
    }

    @Test
    void listIsInCreationOrderAndFindUnknownIsEmpty_DM1() {
        Connection a = store.create(apiKey("openai", "a", "k1", 5));
        now.addAndGet(1);
        Connection b = store.create(apiKey("glm", "b", "k2", 1));
        Connection c = store.create(apiKey("openai", "c", "k3", 2));

        assertThat(store.list()).extracting(Connection::id).containsExactly(a.id(), b.id(), c.id());
        assertThat(store.list()).extracting(Connection::seq).containsExactly(1L, 2L, 3L);
        assertThat(store.find("missing")).isEmpty();
        assertThat(store.list()).isUnmodifiable();
    }

    @Test
    void updateReplacesFieldsKeepsStateSeqAndCreationTime_DM1_RQ9() {
        Connection created = store.create(apiKey("openai", "old", "sk-old", 1));
        ConnectionState cooling = new ConnectionState("unavailable", T0 + 60_000, "HTTP 429", "rate_limit_exceeded", "429", 2, 1);
        store.updateState(created.id(), cooling);
        now.addAndGet(5_000);

        Connection updated = store.update(created.id(), full(), true).orElseThrow();

        assertThat(updated.id()).isEqualTo(created.id());
        assertThat(updated.seq()).isEqualTo(created.seq());
        assertThat(updated.provider()).isEqualTo("claude");
        assertThat(updated.name()).isEqualTo("work account");
        assertThat(updated.apiKey()).isNull();
        assertThat(updated.oauth().accessToken()).isEqualTo("oauth-access-SECRET");
        assertThat(updated.priority()).isEqualTo(3);
        assertThat(updated.rateLimitProtection()).isTrue();
        // new credentials: the old key's resilience state no longer applies (CC-6)
        assertThat(updated.state()).isEqualTo(ConnectionState.ACTIVE);
        assertThat(updated.createdAt()).isEqualTo(T0);
        assertThat(updated.updatedAt()).isEqualTo(T0 + 5_000);
        assertThat(store.find(created.id())).contains(updated);
    }

    @Test
    void anEditThatKeepsTheCredentialsKeepsTheResilienceState_CC6() {
        Connection created = store.create(apiKey("openai", "old", "sk-same", 1));
        ConnectionState banned = new ConnectionState("banned", null, "account deactivated", "banned", "403", 0, 0);
        store.updateState(created.id(), banned);
        assertThat(store.update(created.id(), apiKey("openai", "renamed", "sk-same", 2), false).orElseThrow().state()).isEqualTo(banned);
        assertThat(store.update(created.id(), apiKey("openai", "renamed", "sk-new", 2), false).orElseThrow().state())
                .isEqualTo(ConnectionState.ACTIVE);
    }

    @Test
    void aStateWriteRereadsOnlyItsRowAndKeepsTheOthersInTheSnapshot_CC1() {
        Connection a = store.create(apiKey("openai", "a", "k1", 1));
        Connection b = store.create(apiKey("openai", "b", "k2", 1));
        Connection bBefore = store.find(b.id()).orElseThrow();
        ConnectionState cooling = new ConnectionState("unavailable", T0 + 1_000, null, "rate_limit_exceeded", null, 1, 0);
        store.updateState(a.id(), cooling);
        assertThat(store.list()).extracting(Connection::id).containsExactly(a.id(), b.id());
        assertThat(store.find(a.id()).orElseThrow().state()).isEqualTo(cooling);
        assertThat(store.find(b.id()).orElseThrow()).isSameAs(bBefore);
    }

    @Test
    void updateStoresTheGivenRateLimitProtectionFlag_RQ9() {
        Connection c = store.create(apiKey("openai", "n", "k", 1));
        assertThat(store.update(c.id(), apiKey("openai", "n", "k", 1), true).orElseThrow().rateLimitProtection()).isTrue();
        assertThat(store.update(c.id(), apiKey("openai", "n", "k", 1), false).orElseThrow().rateLimitProtection()).isFalse();
    }

    @Test
    void aLearnedProviderSettingJoinsTheOthersAndKeepsTokensAndState_issue36() {
        Connection c = store.create(full());

        Connection updated = store.putProviderSetting(c.id(), "projectId", "proj-1").orElseThrow();

        assertThat(updated.providerSpecificDataJson()).isEqualTo("{\"lowPriorityMode\":true,\"projectId\":\"proj-1\"}");
        assertThat(updated.oauth()).isEqualTo(c.oauth());
        assertThat(updated.state()).isEqualTo(c.state());
        assertThat(store.putProviderSetting(c.id(), "projectId", "proj-2").orElseThrow().providerSpecificDataJson())
                .isEqualTo("{\"lowPriorityMode\":true,\"projectId\":\"proj-2\"}");
        Connection bare = store.create(apiKey("gemini", "n", "k", 1));
        assertThat(store.putProviderSetting(bare.id(), "projectId", "p").orElseThrow().providerSpecificDataJson())
                .isEqualTo("{\"projectId\":\"p\"}");
        assertThat(store.putProviderSetting("missing", "projectId", "p")).isEmpty();
    }

    @Test
    void pluginUpdatesWriteOnlyConnectionsOfThePluginsOwnProviders_issue36() {
        Connection claude = store.create(full());
        Connection gemini = store.create(apiKey("gemini", "g", "k", 1));
        PluginConnectionUpdates updates = new PluginConnectionUpdates(store, java.util.Set.of("gemini"));

        assertThat(updates.providerSettingLearned(gemini.id(), "projectId", "p")).isTrue();
        assertThat(updates.providerSettingLearned(claude.id(), "projectId", "p")).isFalse();
        assertThat(updates.oauthRenewed(claude.id(), "new", null, null)).isFalse();
        assertThat(updates.providerSettingLearned("missing", "projectId", "p")).isFalse();
        assertThat(store.find(claude.id()).orElseThrow().providerSpecificDataJson()).isEqualTo("{\"lowPriorityMode\":true}");
    }

    @Test
    void updateOfAnUnknownIdIsEmpty_DM1() {
        assertThat(store.update("missing", apiKey("openai", "n", "k", 1), false)).isEmpty();
        assertThat(store.updateState("missing", ConnectionState.ACTIVE)).isEmpty();
    }

    @Test
    void updateStateReplacesEveryResilienceField_CC1() {
        Connection c = store.create(apiKey("openai", "n", "k", 1));
        now.addAndGet(10);
        ConnectionState banned = new ConnectionState("banned", null, "account deactivated", "banned", "403", 0, 3);

        Connection updated = store.updateState(c.id(), banned).orElseThrow();

        assertThat(updated.state()).isEqualTo(banned);
        assertThat(updated.updatedAt()).isEqualTo(T0 + 10);
        assertThat(updated.apiKey()).isEqualTo("k");
        assertThat(store.updateState(c.id(), ConnectionState.ACTIVE).orElseThrow().state()).isEqualTo(ConnectionState.ACTIVE);
    }

    @Test
    void deleteRemovesTheConnectionOnce_DM1() {
        Connection a = store.create(apiKey("openai", "a", "k1", 1));
        Connection b = store.create(apiKey("openai", "b", "k2", 1));

        assertThat(store.delete(a.id())).isTrue();
        assertThat(store.delete(a.id())).isFalse();
        assertThat(store.find(a.id())).isEmpty();
        assertThat(store.list()).extracting(Connection::id).containsExactly(b.id());
    }

    @Test
    void creationOrderSurvivesDeletingTheNewest_DM1() {
        Connection a = store.create(apiKey("openai", "a", "k1", 1));
        Connection b = store.create(apiKey("openai", "b", "k2", 1));
        store.delete(b.id());
        Connection c = store.create(apiKey("openai", "c", "k3", 1));

        assertThat(c.seq()).isGreaterThan(a.seq());
        assertThat(store.list()).extracting(Connection::id).containsExactly(a.id(), c.id());
    }

    @Test
    void secretsAreEncryptedAtRest_SEC3() throws Exception {
        Connection key = store.create(apiKey("openai", "n", "sk-plaintext-API-KEY", 1));
        Connection oauth = store.create(full());

        Map<String, String> keyRow = rawSecrets(key.id());
        assertThat(keyRow.get("api_key_enc")).startsWith("v1:").doesNotContain("sk-plaintext-API-KEY");
        assertThat(keyRow.get("oauth_access_enc")).isNull();
        Map<String, String> oauthRow = rawSecrets(oauth.id());
        assertThat(oauthRow.get("api_key_enc")).isNull();
        assertThat(oauthRow.get("oauth_access_enc")).startsWith("v1:").doesNotContain("oauth-access-SECRET");
        assertThat(oauthRow.get("oauth_refresh_enc")).startsWith("v1:").doesNotContain("oauth-refresh-SECRET");
    }

    @Test
    void updateReEncryptsTheNewSecret_SEC3() throws Exception {
        Connection c = store.create(apiKey("openai", "n", "sk-first", 1));
        store.update(c.id(), apiKey("openai", "n", "sk-second-KEY", 1), false);

        assertThat(rawSecrets(c.id()).get("api_key_enc")).startsWith("v1:").doesNotContain("sk-second-KEY");
        assertThat(store.find(c.id()).orElseThrow().apiKey()).isEqualTo("sk-second-KEY");
    }

    @Test
    void connectionsSurviveAReopenWithTheSameKey_DM4() {
        Connection c = store.create(full());
        store.updateState(c.id(), new ConnectionState("unavailable", T0 + 1, "e", "timeout", null, 1, 0));
        Connection before = store.find(c.id()).orElseThrow();
        db.close();

        db = Database.open(dir);
        JdbcConnectionStore reopened = new JdbcConnectionStore(db, SecretBox.fromBase64(KEY), clock);

        assertThat(reopened.list()).containsExactly(before);
    }

    @Test
    void aDifferentKeyCannotReadTheStoredSecretsAndSaysSoWithoutThem_SEC2() {
        store.create(apiKey("openai", "n", "sk-plaintext-API-KEY", 1));

        assertThatThrownBy(() -> new JdbcConnectionStore(db, SecretBox.fromBase64(OTHER_KEY), clock))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageNotContaining("sk-plaintext-API-KEY")
                .hasMessageContaining("wrong SLUICE_SECRET_KEY");
    }

    @Test
    void concurrentStateUpdatesAreAllVisibleInTheSnapshot_CC3() throws Exception {
        List<Connection> connections = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            connections.add(store.create(apiKey("openai", "c" + i, "k", 1)));
        }
        for (int round = 1; round <= 100; round++) {
            CyclicBarrier start = new CyclicBarrier(connections.size());
            List<Thread> threads = new ArrayList<>();
            int level = round;
            for (Connection c : connections) {
                threads.add(Thread.ofPlatform().start(() -> {
                    try {
                        start.await();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                    store.updateState(c.id(), new ConnectionState("unavailable", null, null, null, null, level, 0));
                }));
            }
            for (Thread t : threads) {
                t.join();
            }
            assertThat(store.list()).as("round %d", round).allSatisfy(c -> assertThat(c.state().backoffLevel()).isEqualTo(level));
        }
    }

    @Test
    void toStringsMaskSecrets_SEC2() {
        Connection key = store.create(apiKey("openai", "n", "sk-plaintext-API-KEY", 1));
        Connection oauth = store.create(full());

        assertThat(key.toString()).contains("apiKey=***").doesNotContain("sk-plaintext-API-KEY");
        assertThat(oauth.toString()).doesNotContain("SECRET").doesNotContain("pw@").contains("apiKey=none");
        assertThat(oauth.oauth().toString()).doesNotContain("SECRET").contains("accessToken=***").contains("refreshToken=***");
        assertThat(new OAuthTokens("a-SECRET", null, null).toString()).contains("refreshToken=none").doesNotContain("SECRET");
        assertThat(apiKey("openai", "n", "sk-plaintext-API-KEY", 1).toString()).doesNotContain("sk-plaintext-API-KEY");
        assertThat(full().toString()).doesNotContain("SECRET");
    }
}
