package dev.sluice.runtime.resilience;

import dev.sluice.api.ProviderClass;
import dev.sluice.api.rules.FailureReason;
import dev.sluice.runtime.store.Connection;

/**
 * One connection's hold check in one request: the facts the mechanisms read, and the answer the
 * first mechanism that holds it writes. A request reuses one for every walked connection, so a
 * walk allocates nothing (NF-3); not thread-safe.
 */
public class HoldCheck {

    private String provider;
    private ProviderClass providerClass;
    private Connection connection;
    private BreakerKey breakerKey;
    private ModelHolds modelHolds = ModelHolds.NONE;
    private long now;

    private Exclusion.Reason reason;
    private long remainingMs;
    private FailureReason cause;

    private Object memoKey;
    private long memoMs;

    /** Creates an empty check; {@link #of} fills it. */
    public HoldCheck() {
    }

    /**
     * Points the check at one connection of the request.
     *
     * @param provider the provider id
     * @param providerClass the provider's class
     * @param connection the connection
     * @param breakerKey the breaker of its host
     * @param modelHolds the request's model holds
     * @param now the time of the check, epoch ms
     * @return this check
     */
    public HoldCheck of(String provider, ProviderClass providerClass, Connection connection, BreakerKey breakerKey, ModelHolds modelHolds,
            long now) {
        this.provider = provider;
        this.providerClass = providerClass;
        this.connection = connection;
        this.breakerKey = breakerKey;
        this.modelHolds = modelHolds == null ? ModelHolds.NONE : modelHolds;
        this.now = now;
        return this;
    }

    /**
     * Records a hold.
     *
     * @param why the mechanism that holds
     * @param ms the time left, ms
     * @param failure the failure behind it, or null
     * @return true (a mechanism returns it from {@link Mechanism#holds})
     */
    public boolean hold(Exclusion.Reason why, long ms, FailureReason failure) {
        reason = why;
        remainingMs = ms;
        cause = failure;
        return true;
    }

    /**
     * Records a hold without a failure behind it.
     *
     * @param why the mechanism that holds
     * @param ms the time left, ms
     * @return true
     */
    public boolean hold(Exclusion.Reason why, long ms) {
        return hold(why, ms, null);
    }

    /**
     * A mechanism's answer kept for the rest of the request under a key (the breaker answers once
     * per host, not once per connection): the kept time when {@code key} is the last one kept,
     * else -1.
     *
     * @param key the key of the kept answer (compared by identity)
     * @return the kept time, or -1
     */
    public long memo(Object key) {
        return key == memoKey ? memoMs : -1;
    }

    /**
     * Keeps an answer for the rest of the request.
     *
     * @param key its key
     * @param ms the time
     * @return {@code ms}
     */
    public long memo(Object key, long ms) {
        memoKey = key;
        memoMs = ms;
        return ms;
    }

    /** Forgets the kept answer (after an attempt changed what it said). */
    public void forgetMemo() {
        memoKey = null;
    }

    /** @return the provider id */
    public String provider() {
        return provider;
    }

    /** @return the provider's class */
    public ProviderClass providerClass() {
        return providerClass;
    }

    /** @return the connection */
    public Connection connection() {
        return connection;
    }

    /** @return the breaker of the connection's host */
    public BreakerKey breakerKey() {
        return breakerKey;
    }

    /** @return the request's model holds */
    public ModelHolds modelHolds() {
        return modelHolds;
    }

    /** @return the time of the check, epoch ms */
    public long now() {
        return now;
    }

    /** @return the failure behind the last hold, or null */
    public FailureReason cause() {
        return cause;
    }

    /** @return the mechanism of the last hold */
    public Exclusion.Reason reason() {
        return reason;
    }

    /** @return the time left of the last hold, ms */
    public long remainingMs() {
        return remainingMs;
    }
}
