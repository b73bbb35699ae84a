package dev.sluice.runtime.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.combo.strategy.RoundRobinTurns;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Round-robin's turns shared by instances through a real redis-server (issue 37, §3). */
class RedisTurnsTest {

    @RegisterExtension
    final RedisInstances redis = new RedisInstances();

    private static final int[] THREE = {0, 1, 2};

    @Test
    void theInstancesTakeOneTurnBetweenThem() {
        RoundRobinTurns a = redis.instance().turns();
        RoundRobinTurns b = redis.instance().turns();
        RoundRobinTurns c = redis.instance().turns();
        assertThat(a.previous("combo")).isEqualTo(RoundRobinTurns.NO_START_YET);
        assertThat(new int[] {a.take("combo", THREE), b.take("combo", THREE), c.take("combo", THREE), a.take("combo", THREE)})
                .containsExactly(0, 1, 2, 0);
        assertThat(b.previous("combo")).isZero();
        // another combo has its own turn
        assertThat(b.take("other", THREE)).isZero();
    }

    @Test
    void anExcludedTargetIsSkippedAndRejoinsInItsPlace() {
        RoundRobinTurns a = redis.instance().turns();
        RoundRobinTurns b = redis.instance().turns();
        assertThat(a.take("combo", THREE)).isZero();
        assertThat(b.take("combo", new int[] {0, 2})).as("target 1 held back").isEqualTo(2);
        assertThat(a.take("combo", THREE)).isZero();
        assertThat(b.take("combo", THREE)).isEqualTo(1);
    }

    @Test
    void aForgottenComboStartsAgainAndRedisDownFallsBackToThisInstancesTurns() {
        SharedState one = redis.instance();
        RoundRobinTurns a = one.turns();
        assertThat(a.take("combo", THREE)).isZero();
        assertThat(a.take("combo", THREE)).isEqualTo(1);
        a.forget("combo");
        assertThat(a.previous("combo")).isEqualTo(RoundRobinTurns.NO_START_YET);
        redis.server().stop();
        assertThat(new int[] {a.take("combo", THREE), a.take("combo", THREE)}).containsExactly(0, 1);
        assertThat(a.previous("combo")).isEqualTo(1);
    }
}
