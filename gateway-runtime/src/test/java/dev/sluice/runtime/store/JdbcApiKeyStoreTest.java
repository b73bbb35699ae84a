package dev.sluice.runtime.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Gateway API keys stored as hashes (SPEC SEC-1, AD-1). */
class JdbcApiKeyStoreTest {

    private static final long T0 = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();

    @TempDir
    Path dir;

    private final AtomicLong now = new AtomicLong(T0);
    private final InstantSource clock = () -> Instant.ofEpochMilli(now.get());
    private Database db;
    private JdbcApiKeyStore store;

    @BeforeEach
    void open() {
        db = Database.open(dir);
        store = new JdbcApiKeyStore(db, clock);
    }

    @AfterEach
    void close() {
        db.close();
    }

    @Test
    void createdKeyIsFoundByItsHash_SEC1() {
        ApiKey k = store.create("ci", "hash-1", "sk-sluice-AbCd…", List.of("admin", "lease:exclusive"), List.of("c1", "c2"));

        assertThat(k.id()).isNotBlank();
        assertThat(k.name()).isEqualTo("ci");
        assertThat(k.keyHash()).isEqualTo("hash-1");
        assertThat(k.keyPreview()).isEqualTo("sk-sluice-AbCd…");
        assertThat(k.scopes()).containsExactly("admin", "lease:exclusive");
        assertThat(k.allowedConnections()).containsExactly("c1", "c2");
        assertThat(k.createdAt()).isEqualTo(T0);
        assertThat(store.findByHash("hash-1")).contains(k);
        assertThat(store.findByHash("hash-2")).isEmpty();
        assertThat(store.list()).containsExactly(k);
    }

    @Test
    void emptyScopesAndAllowedConnectionsRoundTripAsEmptyLists_AD1() {
        ApiKey k = store.create("plain", "h", "p", List.of(), List.of());

        assertThat(k.scopes()).isEmpty();
        assertThat(k.allowedConnections()).isEmpty();
    }

    @Test
    void deleteRemovesTheKeyFromTheHashIndex_SEC1() {
        ApiKey k = store.create("n", "h", "p", List.of(), List.of());

        assertThat(store.delete(k.id())).isTrue();
        assertThat(store.delete(k.id())).isFalse();
        assertThat(store.findByHash("h")).isEmpty();
        assertThat(store.list()).isEmpty();
    }

    @Test
    void keysSurviveAReopen_DM4() {
        ApiKey k = store.create("n", "h", "p", List.of("admin"), List.of("c"));
        db.close();

        db = Database.open(dir);
        JdbcApiKeyStore reopened = new JdbcApiKeyStore(db, clock);

        assertThat(reopened.findByHash("h")).contains(k);
        assertThat(reopened.list()).containsExactly(k);
    }

    @Test
    void allowedModelsAreStoredAndAnUpdateReplacesNameAndGrantsButNotTheHash_issue33() {
        ApiKey k = store.create("team", "h", "p", new ApiKey.Grants(List.of(), List.of("c1"), List.of("openai/*", "fast")));
        assertThat(k.allowedModels()).containsExactly("openai/*", "fast");

        ApiKey changed = store.update(k.id(), "team-b", new ApiKey.Grants(List.of("admin"), List.of(), List.of("glm/glm-5"))).orElseThrow();

        assertThat(changed.name()).isEqualTo("team-b");
        assertThat(changed.scopes()).containsExactly("admin");
        assertThat(changed.allowedConnections()).isEmpty();
        assertThat(changed.allowedModels()).containsExactly("glm/glm-5");
        assertThat(changed.keyHash()).isEqualTo("h");
        assertThat(changed.createdAt()).isEqualTo(k.createdAt());
        assertThat(store.findByHash("h")).contains(changed);
        assertThat(store.update("nope", "x", changed.grants())).isEmpty();
        db.close();
        db = Database.open(dir);
        assertThat(new JdbcApiKeyStore(db, clock).findByHash("h")).contains(changed);
    }

    @Test
    void aDuplicateHashIsRefused_SEC1() {
        store.create("a", "same", "p", List.of(), List.of());

        assertThatThrownBy(() -> store.create("b", "same", "p", List.of(), List.of())).isInstanceOf(StoreException.class);
        assertThat(store.list()).extracting(ApiKey::name).containsExactly("a");
    }

    @Test
    void listIsInCreationOrderAcrossMilliseconds_AD1() {
        store.create("first", "h1", "p", List.of(), List.of());
        now.addAndGet(1);
        store.create("second", "h2", "p", List.of(), List.of());
        now.addAndGet(1);
        store.create("third", "h3", "p", List.of(), List.of());

        assertThat(store.list()).extracting(ApiKey::name).containsExactly("first", "second", "third");
    }

    @Test
    void listIsInCreationOrderWithinOneMillisecond_AD1() {
        for (int i = 0; i < 6; i++) {
            store.create("k" + i, "h" + i, "p", List.of(), List.of());
        }

        assertThat(store.list()).extracting(ApiKey::name).containsExactly("k0", "k1", "k2", "k3", "k4", "k5");
    }
}
