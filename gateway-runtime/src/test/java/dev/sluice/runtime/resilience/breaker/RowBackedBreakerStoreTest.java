package dev.sluice.runtime.resilience.breaker;

import static dev.sluice.api.ProviderClass.OAUTH;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.resilience.BreakerKey;
import dev.sluice.runtime.resilience.breaker.BreakerStore.BreakerSnapshot;
import dev.sluice.runtime.store.BreakerRow;
import dev.sluice.runtime.store.BreakerRowStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Breaker snapshots map to table rows and back on the resilience side (SPEC CB-7). */
class RowBackedBreakerStoreTest {

    private static final BreakerKey GLM = new BreakerKey("glm", "open.bigmodel.cn:443");

    /** Rows in memory, ordered by key as the table returns them. */
    private static final class Rows implements BreakerRowStore {
        final Map<String, BreakerRow> rows = new TreeMap<>();

        @Override
        public List<BreakerRow> loadAll() {
            return new ArrayList<>(rows.values());
        }

        @Override
        public void save(BreakerRow row) {
            rows.put(row.key(), row);
        }

        @Override
        public void delete(String provider, String host) {
            rows.remove(provider + "@" + host);
        }

        @Override
        public void deleteAll() {
            rows.clear();
        }
    }

    private final Rows rows = new Rows();
    private final RowBackedBreakerStore store = new RowBackedBreakerStore(rows);

    @Test
    void everyStateRoundTripsThroughItsRowWithNullsIntact_CB7() {
        List<BreakerSnapshot> all = List.of(
                new BreakerSnapshot(GLM, OAUTH, BreakerState.OPEN, 8, 3, 1_000L, 900L, "timeout", 0, 1_000),
                new BreakerSnapshot(new BreakerKey("a", "h:1"), null, BreakerState.CLOSED, 0, 0, null, null, null, 0, 5),
                new BreakerSnapshot(new BreakerKey("b", "h:1"), OAUTH, BreakerState.DEGRADED, 7, 1, null, 20L, "x", 2, 20),
                new BreakerSnapshot(new BreakerKey("c", "h:1"), OAUTH, BreakerState.HALF_OPEN, 13, 1, 7L, 7L, "y", 0, 9));
        all.forEach(store::save);

        assertThat(rows.rows.get("glm@open.bigmodel.cn:443"))
                .isEqualTo(new BreakerRow("glm", "open.bigmodel.cn:443", "oauth", "OPEN", 8, 3, 1_000L, 900L, "timeout", 0, 1_000));
        assertThat(store.loadAll()).containsExactlyInAnyOrderElementsOf(all);
    }

    @Test
    void aRowThatIsNoBreakerIsSkipped_CB7() {
        store.save(BreakerSnapshot.pristine(GLM, OAUTH, 1));
        rows.save(new BreakerRow("x", "y:1", null, "MELTED", 0, 0, null, null, null, 0, 0));
        rows.save(new BreakerRow("x", "y:2", "premium", "OPEN", 0, 0, null, null, null, 0, 0));
        rows.save(new BreakerRow(" ", "y:3", null, "CLOSED", 0, 0, null, null, null, 0, 0));
        rows.save(new BreakerRow("x", "y:4", null, "CLOSED", -1, 0, null, null, null, 0, 0));

        assertThat(store.loadAll()).extracting(BreakerSnapshot::key).containsExactly(GLM);
    }

    @Test
    void deleteAddressesOneRowByProviderAndHost_CB7() {
        store.save(BreakerSnapshot.pristine(GLM, OAUTH, 1));
        store.save(BreakerSnapshot.pristine(new BreakerKey("glm", "api.z.ai:443"), OAUTH, 1));
        store.delete(GLM);
        assertThat(rows.rows).containsOnlyKeys("glm@api.z.ai:443");
        store.deleteAll();
        assertThat(rows.rows).isEmpty();
    }
}
