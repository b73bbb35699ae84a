package dev.sluice.runtime.combo.strategy;

import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.api.combo.ComboTargetView;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code cache-optimized} (issue 34): requests that share a prompt prefix
 * ({@link dev.sluice.api.combo.ComboRequest#promptPrefixHash()}) start at the same target while it
 * is eligible, so the upstream's prompt cache serves them. The target is chosen by rendezvous
 * (highest-random-weight) hashing of the prefix with each target's model and pinned connection:
 * every target ranks every prefix independently, so adding a target takes over only the prefixes
 * it now ranks first (about 1/N), and a target that is held back hands its prefixes to their second
 * choices, the others keeping theirs. The fallbacks follow in descending rank. A request without a
 * prompt goes in priority order. Cost: one 64-bit hash of the prefix (computed once per request)
 * and one mix per eligible target.
 */
final class CacheOptimizedStrategy implements ComboStrategy {

    static final String NAME = "cache-optimized";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<ComboTargetView> order(ComboContext context, List<ComboTargetView> eligible) {
        long prefix = context.request().promptPrefixHash();
        if (prefix == 0) {
            return Orders.sorted(eligible, Orders.PRIORITY);
        }
        // each target's rank computed once (a sort would ask for it O(n log n) times)
        Map<ComboTargetView, Long> ranks = new IdentityHashMap<>(eligible.size() * 2);
        for (ComboTargetView t : eligible) {
            ranks.put(t, rank(prefix, t));
        }
        Comparator<ComboTargetView> byRank = Comparator.comparingLong((ComboTargetView t) -> ranks.get(t)).reversed()
                .thenComparing(Orders.PRIORITY);
        return Orders.sorted(eligible, byRank);
    }

    /** A target's rank for a prefix: stable across restarts and instances (no identity hashes). */
    static long rank(long prefix, ComboTargetView t) {
        long h = feed(0xcbf29ce484222325L, t.model());
        h = feed(h * 0x100000001b3L, t.connectionId() == null ? "" : t.connectionId());
        return mix(prefix ^ h);
    }

    private static long feed(long h, String s) {
        for (int i = 0; i < s.length(); i++) {
            h ^= s.charAt(i);
            h *= 0x100000001b3L;
        }
        return h;
    }

    /** SplitMix64's finaliser: every input bit moves every output bit. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
