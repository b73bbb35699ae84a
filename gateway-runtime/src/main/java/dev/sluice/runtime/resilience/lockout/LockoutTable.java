package dev.sluice.runtime.resilience.lockout;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * Where model lockouts live (SPEC §11, DM-4: in memory only), and an exact count of the entries
 * held. It knows nothing of durations or settings: {@link LockoutPolicy} computes entries,
 * {@link LocalModelLockouts} decides which keys a failure or a request concerns.
 *
 * <p><b>Layout (NF-3).</b> Model first: provider → {@link LockoutKind} → key model → connection →
 * lockout. A request reads the connection maps of its model once; each connection then costs a
 * hash lookup per kind and allocates nothing. Operations by connection scan the key models; they
 * serve the admin API, not requests.
 *
 * <p><b>Concurrency.</b> Reads are lock-free. Every write to one key model (all its connections)
 * runs inside {@link ConcurrentHashMap#compute} of that key, which also drops the key's connection
 * map once it is empty; a read that meets an entry past its window removes just that entry,
 * conditionally on its identity. A reader holding a connection map may miss a lock recorded after
 * it read the map, never one recorded before; a removed or decayed lock is replaced or removed in
 * place and never blocks after the write returns.
 */
final class LockoutTable {

    /** Drops a key model's connection map once it holds nothing (non-capturing: no allocation). */
    private static final BiFunction<String, ConcurrentHashMap<String, ModelLockout>, ConcurrentHashMap<String, ModelLockout>>
            DROP_IF_EMPTY = (k, conns) -> conns.isEmpty() ? null : conns;

    private final ConcurrentHashMap<String, ProviderLocks> byProvider = new ConcurrentHashMap<>();
    private final AtomicInteger stored = new AtomicInteger();

    /**
     * One provider's lockouts, or null when it never had one.
     *
     * @param provider the provider id
     * @return its locks, or null
     */
    ProviderLocks get(String provider) {
        return byProvider.get(provider);
    }

    /**
     * One provider's lockouts, created empty when it has none yet.
     *
     * @param provider the provider id
     * @return its locks
     */
    ProviderLocks getOrCreate(String provider) {
        return byProvider.computeIfAbsent(provider, id -> new ProviderLocks());
    }

    /**
     * Replaces one connection's entry under one key by what {@code next} makes of it, atomically
     * for the key.
     *
     * @param p the provider's locks
     * @param kind the key's kind
     * @param key the key model
     * @param connectionId the connection
     * @param next from the entry in force (or null) to the entry to store; never null
     * @return the stored entry
     */
    ModelLockout update(ProviderLocks p, LockoutKind kind, String key, String connectionId, UnaryOperator<ModelLockout> next) {
        ModelLockout[] result = new ModelLockout[1];
        p.map(kind).compute(key, (k, conns) -> {
            if (conns == null) {
                conns = new ConcurrentHashMap<>(4);
            }
            ModelLockout e = next.apply(conns.get(connectionId));
            // put even an unchanged entry: a read may have dropped it meanwhile (null then counts it again)
            if (conns.put(connectionId, e) == null) {
                stored.incrementAndGet();
            }
            result[0] = e;
            return conns;
        });
        return result[0];
    }

    /**
     * A read met an entry past its window: drops exactly that entry, and the key once it is empty.
     *
     * @param p the provider's locks
     * @param kind the key's kind
     * @param key the key model
     * @param conns the key's connection map as the reader holds it
     * @param connectionId the connection
     * @param e the entry the reader saw
     */
    void dropStale(ProviderLocks p, LockoutKind kind, String key, ConcurrentHashMap<String, ModelLockout> conns,
            String connectionId, ModelLockout e) {
        if (removeEntry(conns, connectionId, e) && conns.isEmpty()) {
            p.map(kind).computeIfPresent(key, DROP_IF_EMPTY);
        }
    }

    /**
     * ML-3: decays one key's entry of one connection ({@link LockoutPolicy#decayed}); deletes it
     * when its count reaches 0.
     *
     * @param p the provider's locks
     * @param kind the key's kind
     * @param key the key model
     * @param connectionId the connection
     * @return the entry the decay deleted, or null when it deleted none
     */
    ModelLockout decay(ProviderLocks p, LockoutKind kind, String key, String connectionId) {
        ConcurrentHashMap<String, ConcurrentHashMap<String, ModelLockout>> map = p.map(kind);
        ConcurrentHashMap<String, ModelLockout> seen = map.get(key);
        if (seen == null || !seen.containsKey(connectionId)) {
            return null; // the common case after a success: nothing to decay, nothing allocated
        }
        ModelLockout[] deleted = new ModelLockout[1];
        map.computeIfPresent(key, (k, conns) -> {
            ModelLockout e = conns.get(connectionId);
            if (e != null) {
                ModelLockout decayed = LockoutPolicy.decayed(e);
                if (decayed == null) {
                    removeEntry(conns, connectionId, e);
                    deleted[0] = e;
                } else {
                    // replace only if still e: a read may have dropped it as stale meanwhile
                    conns.replace(connectionId, e, decayed);
                }
            }
            return conns.isEmpty() ? null : conns;
        });
        return deleted[0];
    }

    /**
     * Removes one key's entry of one connection.
     *
     * @param p the provider's locks
     * @param kind the key's kind
     * @param key the key model
     * @param connectionId the connection
     * @param now the current time, epoch ms
     * @return 1 when the removed entry was in force, else 0
     */
    int remove(ProviderLocks p, LockoutKind kind, String key, String connectionId, long now) {
        int[] unexpired = new int[1];
        p.map(kind).computeIfPresent(key, (k, conns) -> {
            ModelLockout e = conns.get(connectionId);
            if (e != null && removeEntry(conns, connectionId, e) && e.expiresAt() > now) {
                unexpired[0] = 1;
            }
            return conns.isEmpty() ? null : conns;
        });
        return unexpired[0];
    }

    /**
     * Removes every entry of one connection, of every kind (a scan of the key models).
     *
     * @param connectionId the connection
     * @param now the current time, epoch ms
     * @return the number of removed entries that were in force
     */
    int removeConnection(String connectionId, long now) {
        int unexpired = 0;
        for (ProviderLocks p : byProvider.values()) {
            for (LockoutKind kind : LockoutKind.ALL) {
                for (Map.Entry<String, ConcurrentHashMap<String, ModelLockout>> key : p.map(kind).entrySet()) {
                    if (key.getValue().containsKey(connectionId)) {
                        unexpired += remove(p, kind, key.getKey(), connectionId, now);
                    }
                }
            }
        }
        return unexpired;
    }

    /**
     * Removes every entry, of every kind, that {@code which} selects.
     *
     * @param which the entries to remove
     * @param now the current time, epoch ms
     * @return the number of removed entries that were in force
     */
    int removeAll(Predicate<ModelLockout> which, long now) {
        int[] unexpired = new int[1];
        for (ProviderLocks p : byProvider.values()) {
            for (LockoutKind kind : LockoutKind.ALL) {
                ConcurrentHashMap<String, ConcurrentHashMap<String, ModelLockout>> map = p.map(kind);
                for (String key : map.keySet()) {
                    map.computeIfPresent(key, (k, conns) -> {
                        for (Map.Entry<String, ModelLockout> e : conns.entrySet()) {
                            if (which.test(e.getValue()) && removeEntry(conns, e.getKey(), e.getValue())
                                    && e.getValue().expiresAt() > now) {
                                unexpired[0]++;
                            }
                        }
                        return conns.isEmpty() ? null : conns;
                    });
                }
            }
        }
        return unexpired[0];
    }

    /**
     * The entries in force of some kinds (a scan).
     *
     * @param kinds the kinds to look at
     * @param now the current time, epoch ms
     * @return the unexpired entries, in no particular order
     */
    List<ModelLockout> inForce(LockoutKind[] kinds, long now) {
        List<ModelLockout> out = new ArrayList<>();
        for (ProviderLocks p : byProvider.values()) {
            for (LockoutKind kind : kinds) {
                for (ConcurrentHashMap<String, ModelLockout> conns : p.map(kind).values()) {
                    for (ModelLockout e : conns.values()) {
                        if (e.expiresAt() > now) {
                            out.add(e);
                        }
                    }
                }
            }
        }
        return out;
    }

    /**
     * The number of entries in force of some kinds (a scan that allocates no list).
     *
     * @param kinds the kinds to look at
     * @param now the current time, epoch ms
     * @return the count
     */
    int countInForce(LockoutKind[] kinds, long now) {
        int n = 0;
        for (ProviderLocks p : byProvider.values()) {
            for (LockoutKind kind : kinds) {
                for (ConcurrentHashMap<String, ModelLockout> conns : p.map(kind).values()) {
                    for (ModelLockout e : conns.values()) {
                        if (e.expiresAt() > now) {
                            n++;
                        }
                    }
                }
            }
        }
        return n;
    }

    /**
     * Whether a connection has an entry in force of some kinds (a scan).
     *
     * @param kinds the kinds to look at
     * @param connectionId the connection
     * @param now the current time, epoch ms
     * @return true when at least one is unexpired
     */
    boolean anyInForce(LockoutKind[] kinds, String connectionId, long now) {
        for (ProviderLocks p : byProvider.values()) {
            for (LockoutKind kind : kinds) {
                for (ConcurrentHashMap<String, ModelLockout> conns : p.map(kind).values()) {
                    ModelLockout e = conns.get(connectionId);
                    if (e != null && e.expiresAt() > now) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /**
     * Entries held, in force or inside their escalation window.
     *
     * @return the exact count
     */
    int stored() {
        return stored.get();
    }

    /** Removes one entry if it is still {@code e}, keeping the stored count exact. */
    private boolean removeEntry(ConcurrentHashMap<String, ModelLockout> conns, String connectionId, ModelLockout e) {
        if (conns.remove(connectionId, e)) {
            stored.decrementAndGet();
            return true;
        }
        return false;
    }

    /** One provider's lockouts, model first: per kind, key model → connection id → lockout. */
    static final class ProviderLocks {
        final ConcurrentHashMap<String, ConcurrentHashMap<String, ModelLockout>> family = new ConcurrentHashMap<>();
        final ConcurrentHashMap<String, ConcurrentHashMap<String, ModelLockout>> model = new ConcurrentHashMap<>();
        final ConcurrentHashMap<String, ConcurrentHashMap<String, ModelLockout>> exact = new ConcurrentHashMap<>();
        final ConcurrentHashMap<String, ConcurrentHashMap<String, ModelLockout>> retryInfo = new ConcurrentHashMap<>();

        ConcurrentHashMap<String, ConcurrentHashMap<String, ModelLockout>> map(LockoutKind kind) {
            return switch (kind) {
                case FAMILY -> family;
                case MODEL -> model;
                case EXACT -> exact;
                case RETRY_INFO -> retryInfo;
            };
        }
    }
}
