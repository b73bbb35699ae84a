package dev.sluice.runtime.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.ProviderClass;
import dev.sluice.runtime.resilience.BreakerKey;
import dev.sluice.runtime.resilience.ClusterEvents;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.breaker.BreakerStore;
import dev.sluice.runtime.resilience.breaker.CircuitBreakers;
import dev.sluice.runtime.resilience.breaker.shared.SharedCircuitBreakers;
import dev.sluice.runtime.resilience.lockout.ModelLockouts;
import dev.sluice.runtime.resilience.lockout.shared.SharedModelLockouts;
import dev.sluice.runtime.resilience.window.ProviderCooldowns;
import dev.sluice.runtime.resilience.window.shared.SharedProviderCooldowns;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 26: what a request asks of the shared boards — a connection's announced cooldown, its
 * model's lockouts, the provider's window, the breaker at selection and again at admission — is
 * answered from the mirrors, with no command reaching Redis (counted by the server itself).
 */
class SharedRequestPathTest {

    @RegisterExtension
    final RedisInstances redis = new RedisInstances();

    /** The calls the server counted since start ({@code INFO commandstats}), the INFO itself excluded. */
    private long commands(RedisClient raw) {
        String info = raw.call(j -> j.info("commandstats"));
        long n = 0;
        for (String line : info.split("\r?\n")) {
            int at = line.indexOf("calls=");
            if (line.startsWith("cmdstat_") && at > 0 && !line.startsWith("cmdstat_info:")) {
                n += Long.parseLong(line.substring(at + 6, line.indexOf(',', at)));
            }
        }
        return n;
    }

    @Test
    void selectionAndAdmissionOfAThousandRequestsSendNoCommandToRedis_issue26() {
        SharedState a = redis.instance();
        await().atMost(Duration.ofSeconds(5)).until(a::eventsSubscribed);
        Clock clock = Clock.systemUTC();
        CircuitBreakers breakers = SharedCircuitBreakers.over(CircuitBreakers.local(clock, () -> ResilienceSettings.DEFAULTS, BreakerStore.none()), a.breakers(), () -> ResilienceSettings.DEFAULTS);
        ModelLockouts lockouts = SharedModelLockouts.over(ModelLockouts.local(clock, () -> ResilienceSettings.DEFAULTS), a.lockouts(), clock,
                () -> ResilienceSettings.DEFAULTS);
        ProviderCooldowns windows = SharedProviderCooldowns.over(ProviderCooldowns.local(clock, () -> ResilienceSettings.DEFAULTS), a.windows(), ClusterEvents.NONE, () -> ResilienceSettings.DEFAULTS);
        BreakerKey key = new BreakerKey("openai", "api.example:443");
        try (RedisClient raw = new RedisClient(redis.settings(), 0)) {
            long before = commands(raw);
            for (int i = 0; i < 1_000; i++) {
                String conn = "c" + (i % 4);
                assertThat(a.cooldowns().remainingMs(conn)).isZero();
                assertThat(lockouts.query("openai", "gpt-5.1", "gpt-5").blocking(conn)).isNull();
                assertThat(windows.providerRemainingMs("openai", ProviderClass.APIKEY)).isZero();
                assertThat(breakers.canExecute(key, ProviderClass.APIKEY)).isTrue();
                assertThat(breakers.admit(key, ProviderClass.APIKEY).admitted()).isTrue();
            }
            long sent = commands(raw) - before;
            // the event subscription's own PING may fall in the window
            assertThat(sent).as("commands Redis received for 1000 requests' selection and admission").isLessThanOrEqualTo(1);
        }
    }
}
