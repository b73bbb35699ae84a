package dev.sluice.runtime.combo.strategy;

import static dev.sluice.runtime.combo.strategy.Views.NOW;
import static dev.sluice.runtime.combo.strategy.Views.indices;
import static dev.sluice.runtime.combo.strategy.Views.plain;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboRequest;
import dev.sluice.api.combo.ComboTargetView;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@code cache-optimized} (issue 34): one prefix, one target while it is eligible; rendezvous rebalancing. */
class CacheOptimizedStrategyTest {

    private final CacheOptimizedStrategy s = new CacheOptimizedStrategy();

    private static ComboContext ctx(long prefix) {
        return new ComboContext("c", Map.of(), new SplittableRandom(1), NOW, ComboRequest.builder().promptPrefixHash(() -> prefix).build());
    }

    private int first(long prefix, List<ComboTargetView> targets) {
        return s.order(ctx(prefix), targets).getFirst().index();
    }

    @Test
    void aPrefixAlwaysStartsAtTheSameTargetAndPrefixesSpreadEvenly_issue34() {
        var four = plain(0, 1, 2, 3);
        int[] starts = new int[4];
        SplittableRandom random = new SplittableRandom(34);
        for (int i = 0; i < 4_000; i++) {
            long prefix = random.nextLong();
            int at = first(prefix, four);
            assertThat(first(prefix, four)).isEqualTo(at);
            starts[at]++;
        }
        for (int n : starts) {
            assertThat(n).isBetween(800, 1_200);
        }
    }

    @Test
    void addingATargetMovesOnlyTheShareItTakesOver_issue34() {
        var four = plain(0, 1, 2, 3);
        var five = plain(0, 1, 2, 3, 4);
        SplittableRandom random = new SplittableRandom(7);
        int moved = 0;
        int n = 2_000;
        for (int i = 0; i < n; i++) {
            long prefix = random.nextLong();
            int before = first(prefix, four);
            int after = first(prefix, five);
            if (before != after) {
                moved++;
                assertThat(after).as("a moved prefix goes to the new target").isEqualTo(4);
            }
        }
        assertThat(moved).isLessThanOrEqualTo((int) (n * (1.0 / 5 + 0.05)));
    }

    @Test
    void aHeldBackTargetHandsOnlyItsOwnPrefixesToTheirSecondChoice_issue34() {
        var all = plain(0, 1, 2, 3);
        var without2 = plain(0, 1, 3);
        SplittableRandom random = new SplittableRandom(3);
        Map<Integer, Integer> moves = new HashMap<>();
        for (int i = 0; i < 2_000; i++) {
            long prefix = random.nextLong();
            List<Integer> order = indices(s.order(ctx(prefix), all));
            int after = first(prefix, without2);
            if (order.getFirst() != 2) {
                assertThat(after).isEqualTo(order.getFirst());
            } else {
                assertThat(after).isEqualTo(order.get(1));
                moves.merge(after, 1, Integer::sum);
            }
        }
        assertThat(moves.keySet()).containsExactlyInAnyOrder(0, 1, 3);
    }

    @Test
    void aRequestWithoutAPromptGoesInPriorityOrder_issue34() {
        var targets = Views.list(Views.t(0).priority(3), Views.t(1).priority(1), Views.t(2).priority(2));

        assertThat(indices(s.order(ctx(0), targets))).containsExactly(1, 2, 0);
        assertThat(indices(s.order(new ComboContext("c", Map.of(), new SplittableRandom(1), NOW), targets))).containsExactly(1, 2, 0);
    }
}
