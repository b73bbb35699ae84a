package dev.sluice.runtime.telemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.store.ProxyLogRow;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which attempts become {@code proxy_logs} rows (issue 26): failures always, egress IP news, a sample of successes. */
class AttemptLogTest {

    private static final long T0 = 1_767_225_600_000L;

    private final RecentRequests recent = new RecentRequests(16);
    private final List<ProxyLogRow> persisted = new ArrayList<>();

    private AttemptLog log(double sample) {
        return new AttemptLog(recent, persisted::add, sample, AttemptLog.RANDOM);
    }

    private static ProxyLogRow ok(String id, long ts, String ip) {
        return new ProxyLogRow(ts, id, "openai", "conn-1", "gpt-4o", 200, 12, null, ip);
    }

    @Test
    void aSuccessThatIsNotSampledIsNotPersistedButIsInTheRing_issue26() {
        AttemptLog log = log(0);
        ProxyLogRow row = ok("req-1", T0, null);
        log.record(row);
        assertThat(persisted).isEmpty();
        assertThat(recent.attempts()).containsExactly(row);
    }

    @Test
    void everyFailedAttemptIsPersistedWhateverTheSample_issue26() {
        AttemptLog log = log(0);
        ProxyLogRow classified = new ProxyLogRow(T0, "req-1", "openai", "conn-1", "gpt-4o", 0, 30_000, "timeout", null);
        ProxyLogRow earlyEof = new ProxyLogRow(T0 + 1, "req-1", "openai", "conn-1", "gpt-4o", 200, 5, "stream_early_eof", null);
        ProxyLogRow status = new ProxyLogRow(T0 + 2, "req-1", "openai", "conn-1", "gpt-4o", 429, 5, null, null);
        log.record(classified);
        log.record(earlyEof);
        log.record(status);
        assertThat(persisted).containsExactly(classified, earlyEof, status);
        assertThat(AttemptLog.failed(ok("r", T0, null))).isFalse();
    }

    @Test
    void sampleOnePersistsEverySuccess_issue26() {
        AttemptLog log = log(1);
        for (int i = 0; i < 50; i++) {
            log.record(ok("req-" + i, T0 + i, null));
        }
        assertThat(persisted).hasSize(50);
    }

    @Test
    void aFractionalSamplePersistsTheDrawsBelowIt_issue26() {
        double[] draws = {0.5, 0.04, 0.05, 0.9, 0.0};
        int[] i = {0};
        AttemptLog log = new AttemptLog(recent, persisted::add, 0.05, () -> draws[i[0]++]);
        for (int n = 0; n < draws.length; n++) {
            log.record(ok("req-" + n, T0 + n, null));
        }
        assertThat(persisted).extracting(ProxyLogRow::requestId).containsExactly("req-1", "req-4");
    }

    @Test
    void aConnectionsEgressIpIsPersistedWhenNewChangedOrTenMinutesOld_issue26_EB2() {
        AttemptLog log = log(0);
        log.record(ok("first", T0, "198.51.100.1"));
        log.record(ok("same", T0 + 1_000, "198.51.100.1"));
        log.record(ok("moved", T0 + 2_000, "198.51.100.2"));
        log.record(ok("same-again", T0 + 3_000, "198.51.100.2"));
        log.record(ok("refresh", T0 + 2_000 + AttemptLog.EGRESS_REFRESH_MS, "198.51.100.2"));
        log.record(new ProxyLogRow(T0 + 5_000, "other", "openai", "conn-2", "gpt-4o", 200, 1, null, "198.51.100.1"));
        assertThat(persisted).extracting(ProxyLogRow::requestId).containsExactly("first", "moved", "refresh", "other");
        assertThat(AttemptLog.EGRESS_REFRESH_MS).isEqualTo(600_000L);
    }

    @Test
    void aPersistedFailureCountsAsTheConnectionsLastEgressIp_issue26_EB2() {
        AttemptLog log = log(0);
        log.record(new ProxyLogRow(T0, "failed", "openai", "conn-1", "gpt-4o", 429, 5, "rate_limit_exceeded", "198.51.100.1"));
        log.record(ok("ok", T0 + 1, "198.51.100.1"));
        assertThat(persisted).extracting(ProxyLogRow::requestId).containsExactly("failed");
    }

    @Test
    void theSampleIsAFraction_issue26() {
        assertThatThrownBy(() -> log(1.5)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0–1");
        assertThatThrownBy(() -> log(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
        assertThat(SluiceConfig.Observability.DEFAULT_PROXY_LOG_SUCCESS_SAMPLE).isEqualTo(0.01);
    }
}
