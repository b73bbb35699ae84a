package dev.sluice.runtime.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.SharedNotes;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Plugins' shared notes ({@code HostContext.sharedNotes()}) against a real redis-server (NF-6). */
class RedisSharedNotesTest {

    @RegisterExtension
    final RedisInstances redis = new RedisInstances();

    private SharedState instance() {
        return redis.instance();
    }

    @Test
    void aNoteWrittenOnOneInstanceIsReadOnAnotherAndExpires() {
        SharedNotes a = instance().notes("claude").orElseThrow();
        SharedNotes b = instance().notes("claude").orElseThrow();
        a.put("c1", "1,2,3,4,accepted", Duration.ofMillis(400));
        assertThat(b.get("c1")).contains("1,2,3,4,accepted");
        assertThat(instance().notes("other").orElseThrow().get("c1")).as("each plugin has its own notes").isEmpty();
        await().atMost(Duration.ofSeconds(3)).until(() -> b.get("c1").isEmpty());

        a.put("c2", "x", Duration.ofMinutes(1));
        b.remove("c2");
        assertThat(a.get("c2")).isEmpty();
    }

    @Test
    void boundsAreCheckedAndAnUnreachableServerReadsEmptyAndDropsWrites() {
        SharedNotes a = instance().notes("claude").orElseThrow();
        assertThatThrownBy(() -> a.put("k", "v", Duration.ZERO)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("time to live");
        assertThatThrownBy(() -> a.put("k", "v".repeat(SharedNotes.MAX_VALUE_LENGTH + 1), Duration.ofSeconds(1)))
                .hasMessageContaining("value");
        assertThatThrownBy(() -> a.get("")).hasMessageContaining("key");
        assertThat(SharedState.open(RedisSettings.NONE, java.time.Clock.systemUTC()).notes("claude")).as("a single instance offers none").isEqualTo(Optional.empty());

        redis.server().stop();
        long started = System.nanoTime();
        a.put("k", "v", Duration.ofSeconds(5));
        assertThat(a.get("k")).isEmpty();
        a.remove("k");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("bounded, no hang").isLessThan(Duration.ofSeconds(5));
    }
}
