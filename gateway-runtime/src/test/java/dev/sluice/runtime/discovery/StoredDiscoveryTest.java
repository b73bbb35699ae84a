package dev.sluice.runtime.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;

class StoredDiscoveryTest {

    private final StoredDiscovery stored = new StoredDiscovery(new ObjectMapper());

    @Test
    void aDiscoveryReadsBackAsWritten() {
        DiscoveredModels ok = new DiscoveredModels(List.of("a", "b"), 1234, null);
        DiscoveredModels failed = DiscoveredModels.failed(ok, 5678, "GET /models answered HTTP 500");
        assertThat(stored.read(stored.write(ok))).contains(ok);
        assertThat(stored.read(stored.write(failed))).contains(new DiscoveredModels(List.of("a", "b"), 5678, "GET /models answered HTTP 500"));
    }

    @Test
    void anUnreadableTextIsNothing() {
        assertThat(stored.read(null)).isEmpty();
        assertThat(stored.read("not json")).isEmpty();
        assertThat(stored.read("{\"ids\":\"a\",\"at\":1}")).isEmpty();
    }

    @Test
    void aFailureBeforeAnySuccessListsNothing() {
        assertThat(DiscoveredModels.failed(null, 1, "down").ids()).isEmpty();
    }
}
