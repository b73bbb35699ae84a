package dev.sluice.runtime.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The hot-path health check says exactly what equality with ACTIVE says (issue 26). */
class ConnectionStateTest {

    @Test
    void isActiveIsEqualityWithActiveFieldByField_issue26() {
        List<ConnectionState> states = List.of(ConnectionState.ACTIVE, new ConnectionState("active", null, null, null, null, 0, 0),
                new ConnectionState("unavailable", null, null, null, null, 0, 0), new ConnectionState("active", 5L, null, null, null, 0, 0),
                new ConnectionState("active", null, "x", null, null, 0, 0), new ConnectionState("active", null, null, "x", null, 0, 0),
                new ConnectionState("active", null, null, null, "x", 0, 0), new ConnectionState("active", null, null, null, null, 1, 0),
                new ConnectionState("active", null, null, null, null, 0, 1), new ConnectionState(null, null, null, null, null, 0, 0));
        for (ConnectionState s : states) {
            assertThat(s.isActive()).as("%s", s).isEqualTo(s.equals(ConnectionState.ACTIVE));
        }
    }
}
