package dev.sluice.plugin.claude;

import dev.sluice.api.Recovery;
import dev.sluice.api.RecoveryCall;
import dev.sluice.api.SharedNotes;
import dev.sluice.api.upstream.ResponseHead;
import java.time.Duration;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.DoubleSupplier;

/**
 * The low-priority lane of a Claude subscription account (SPEC CL-1…CL-4, CL-6): on the usage wall
 * with the lane offered, the account keeps serving with {@code anthropic-usage-limit: slow} until
 * the announced reset (+60 s), instead of being cooled and rotated away. While the lane is active
 * {@code slot_busy} and {@code 529} are waited out (the server's retry-after, ±30 % jitter) up to
 * the max wait; an ending verdict hands the answer on to the normal cooldown path. State in memory
 * per connection, at most {@value #MAX_CONNECTIONS} connections (oldest first out).
 *
 * <p>Several instances (NF-6): with the host's {@link SharedNotes}, every transition is also written
 * as a note (epoch times, as the upstream's reset is), and an instance re-reads an opted-in
 * connection's note at most once every {@value #SYNC_MS} ms, and always before accepting the lane.
 * So an instance joins a lane another one accepted without its own limit 429 (at most
 * {@value #SYNC_MS} ms late), and honours the others' cool-off and spent budget. Without notes, or
 * while they cannot be read, each instance keeps its own state (CL-6).
 */
final class LowPriorityLane {

    /** The request header that rides the lane. */
    static final String HEADER = "anthropic-usage-limit";
    /** Its value. */
    static final String SLOW = "slow";
    static final long GRACE_MS = 60_000;
    static final long COOL_OFF_MS = 600_000;
    static final long DEFAULT_RETRY_AFTER_MS = 20_000;
    static final long MIN_RETRY_AFTER_MS = 5_000;
    static final long MAX_RETRY_AFTER_MS = 600_000;
    static final long DEFAULT_MAX_WAIT_MS = 1_200_000;
    static final long MIN_MAX_WAIT_MS = 60_000;
    static final long MAX_MAX_WAIT_MS = 21_600_000;
    static final long MAX_BUDGET_MEMORY_MS = 8L * 24 * 3_600_000;
    static final double JITTER = 0.30;
    static final int MAX_CONNECTIONS = 10_000;
    /** How often an instance re-reads a connection's shared note, at most. */
    static final long SYNC_MS = 1_000;
    /** Verdicts that end the lane (CL-4). */
    static final Set<String> ENDING = Set.of("weekly_limit", "budget_exhausted", "off", "ineligible");

    private static final System.Logger LOG = System.getLogger(LowPriorityLane.class.getName());

    /**
     * One connection's lane.
     *
     * @param activeUntil the lane is active before this (epoch ms; 0 = not active)
     * @param resetAt the announced reset the lane rides to
     * @param coolOffUntil no lane is accepted before this (past the max wait)
     * @param budgetExhaustedUntil the lane's budget is spent until this
     * @param last the last transition, for operators
     */
    record State(long activeUntil, long resetAt, long coolOffUntil, long budgetExhaustedUntil, String last) {
        static final State NONE = new State(0, 0, 0, 0, null);

        /** The note's text: the four times and the last transition. */
        String note() {
            return activeUntil + "," + resetAt + "," + coolOffUntil + "," + budgetExhaustedUntil + "," + (last == null ? "" : last);
        }

        /** Reads a note; empty when it is not one of ours. */
        static java.util.Optional<State> ofNote(String note) {
            String[] f = note.split(",", 5);
            if (f.length != 5) {
                return java.util.Optional.empty();
            }
            try {
                return java.util.Optional.of(new State(Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]),
                        Long.parseLong(f[3]), f[4].isEmpty() ? null : f[4]));
            } catch (NumberFormatException e) {
                return java.util.Optional.empty();
            }
        }

        /** The latest time this state speaks about. */
        long horizon() {
            return Math.max(Math.max(activeUntil, coolOffUntil), budgetExhaustedUntil);
        }
    }

    private final InstantSource clock;
    private final DoubleSupplier random;
    private final Map<String, State> states = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, State> eldest) {
            return size() > MAX_CONNECTIONS;
        }
    };

    private final SharedNotes notes;
    /** When each connection's note was last read or written (epoch ms). */
    private final Map<String, Long> synced = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > MAX_CONNECTIONS;
        }
    };

    LowPriorityLane(InstantSource clock, DoubleSupplier random) {
        this(clock, random, null);
    }

    /**
     * @param notes the notes shared with the other instances, or null (one instance)
     */
    LowPriorityLane(InstantSource clock, DoubleSupplier random, SharedNotes notes) {
        this.clock = clock;
        this.random = random;
        this.notes = notes;
    }

    private synchronized State state(String connectionId) {
        return states.getOrDefault(connectionId, State.NONE);
    }

    /** Records a transition, and tells the other instances. */
    private void put(String connectionId, State s) {
        State before;
        long now = clock.millis();
        synchronized (this) {
            before = states.put(connectionId, s);
            synced.put(connectionId, now);
        }
        if (notes != null) {
            // outlast the lane this transition may end, so that no instance keeps riding it
            long until = Math.max(Math.max(s.horizon(), before == null ? 0 : before.horizon()), now + GRACE_MS);
            try {
                notes.put(connectionId, s.note(), Duration.ofMillis(Math.min(until - now, SharedNotes.MAX_TTL.toMillis())));
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "claude lane note not shared: " + e.getMessage());
            }
        }
    }

    /** Takes what another instance wrote about a connection, when it is time to look (or {@code now}). */
    private void sync(String connectionId, boolean now) {
        if (notes == null) {
            return;
        }
        long at = clock.millis();
        synchronized (this) {
            Long last = synced.get(connectionId);
            if (!now && last != null && at - last < SYNC_MS) {
                return;
            }
            synced.put(connectionId, at);
        }
        java.util.Optional<State> shared;
        try {
            shared = notes.get(connectionId).flatMap(State::ofNote);
        } catch (RuntimeException e) {
            return;
        }
        shared.ifPresent(s -> {
            synchronized (this) {
                states.put(connectionId, s);
            }
        });
    }

    /** Whether the connection rides the lane now: every request carries {@link #HEADER}. */
    boolean active(String connectionId) {
        return state(connectionId).activeUntil() > clock.millis();
    }

    /**
     * Whether the connection rides the lane now, looking at the other instances' note first when
     * the connection opted in (at most once every {@value #SYNC_MS} ms).
     */
    boolean active(String connectionId, boolean optedIn) {
        if (optedIn) {
            sync(connectionId, false);
        }
        return active(connectionId);
    }

    /**
     * CL-2: accepts the lane offered with a usage wall, when the offer stands, the reset is ahead,
     * the budget is not spent and no cool-off holds.
     *
     * @return true when the lane is now active (retry at once with the slow header)
     */
    boolean accept(String connectionId, UnifiedLimits u) {
        sync(connectionId, true);
        long now = clock.millis();
        State s = state(connectionId);
        if (!"treatment".equalsIgnoreCase(u.slowOffer()) || u.resetAtMs() <= now || s.coolOffUntil() > now
                || s.budgetExhaustedUntil() > now) {
            return false;
        }
        put(connectionId, new State(u.resetAtMs() + GRACE_MS, u.resetAtMs(), 0, s.budgetExhaustedUntil(), "accepted"));
        LOG.log(System.Logger.Level.INFO, "claude connection " + connectionId + ": usage limit reached; riding the low-priority lane until "
                + java.time.Instant.ofEpochMilli(u.resetAtMs() + GRACE_MS));
        return true;
    }

    /**
     * CL-3, CL-4: a failure while the lane is active — wait out a busy slot, or end the lane and
     * hand the answer on.
     */
    Recovery whileActive(String connectionId, int status, UnifiedLimits u, RecoveryCall call) {
        long now = clock.millis();
        State s = state(connectionId);
        String verdict = u.slowStatus() == null ? null : u.slowStatus().toLowerCase(java.util.Locale.ROOT);
        if (status == 529 || (status == 429 && "slot_busy".equals(verdict))) {
            long maxWait = clamp(u.slowMaxWaitMs() < 0 ? DEFAULT_MAX_WAIT_MS : u.slowMaxWaitMs(), MIN_MAX_WAIT_MS, MAX_MAX_WAIT_MS);
            long retry = clamp(u.slowRetryAfterMs() < 0 ? DEFAULT_RETRY_AFTER_MS : u.slowRetryAfterMs(), MIN_RETRY_AFTER_MS,
                    MAX_RETRY_AFTER_MS);
            long jittered = Math.max(1, Math.round(retry * (1 + JITTER * (2 * random.getAsDouble() - 1))));
            if (call.waited().toMillis() + jittered > maxWait) {
                put(connectionId, new State(0, 0, now + COOL_OFF_MS, s.budgetExhaustedUntil(), "max_wait_exceeded"));
                LOG.log(System.Logger.Level.INFO, "claude connection " + connectionId + ": the low-priority lane waited its "
                        + maxWait / 1000 + " s; lane ended, no lane for 10 minutes");
                return Recovery.handOn();
            }
            if (jittered > call.budget().toMillis()) {
                // the request's own start timeout comes first: it ends cleanly, the lane stays for the next one
                return Recovery.handOn();
            }
            return Recovery.retryAfter(Duration.ofMillis(jittered));
        }
        if (verdict != null && ENDING.contains(verdict) || u.overageInUse() || u.wall(status)) {
            end(connectionId, s, verdict != null ? verdict : u.overageInUse() ? "extra_usage" : "limit_without_lane", u, now);
        }
        return Recovery.handOn();
    }

    /**
     * CL-3, CL-4: a successful answer while the lane is active — an ending verdict or a new window
     * ends it (failures are judged by {@link #whileActive}).
     */
    void observe(String connectionId, ResponseHead head) {
        State s = state(connectionId);
        long now = clock.millis();
        if (s.activeUntil() <= now || head.status() < 200 || head.status() > 299) {
            return;
        }
        UnifiedLimits u = UnifiedLimits.of(head);
        String verdict = u.slowStatus() == null ? null : u.slowStatus().toLowerCase(java.util.Locale.ROOT);
        if (verdict != null && ENDING.contains(verdict)) {
            end(connectionId, s, verdict, u, now);
        } else if (u.overageInUse() && "ineligible".equals(verdict)) {
            end(connectionId, s, "extra_usage", u, now);
        } else if ("allowed".equalsIgnoreCase(u.status()) && u.resetAtMs() > s.resetAt() + GRACE_MS) {
            // a new 5-hour window: full speed again
            end(connectionId, s, "new_window", u, now);
        }
    }

    private void end(String connectionId, State s, String why, UnifiedLimits u, long now) {
        long budgetUntil = s.budgetExhaustedUntil();
        if ("budget_exhausted".equals(why)) {
            long until = u.slowBudgetResetMs() > now ? u.slowBudgetResetMs() : u.resetAtMs() > now ? u.resetAtMs() : now + COOL_OFF_MS;
            budgetUntil = Math.min(until, now + MAX_BUDGET_MEMORY_MS);
        }
        put(connectionId, new State(0, 0, s.coolOffUntil(), budgetUntil, "ended:" + why));
        LOG.log(System.Logger.Level.INFO, "claude connection " + connectionId + ": low-priority lane ended (" + why + ")");
    }

    /** What operators see in the connection's row. */
    Map<String, Object> describe(String connectionId) {
        State s = state(connectionId);
        long now = clock.millis();
        Map<String, Object> out = new LinkedHashMap<>();
        if (s == State.NONE) {
            return out;
        }
        out.put("lowPriorityLane", s.activeUntil() > now ? "active" : s.coolOffUntil() > now ? "cool_off" : "inactive");
        if (s.activeUntil() > now) {
            out.put("laneUntil", s.activeUntil());
        }
        if (s.coolOffUntil() > now) {
            out.put("laneCoolOffUntil", s.coolOffUntil());
        }
        if (s.budgetExhaustedUntil() > now) {
            out.put("laneBudgetExhaustedUntil", s.budgetExhaustedUntil());
        }
        if (s.last() != null) {
            out.put("laneLastTransition", s.last());
        }
        return out;
    }

    private static long clamp(long v, long min, long max) {
        return Math.max(min, Math.min(max, v));
    }
}
