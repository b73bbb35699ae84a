package dev.sluice.runtime.resilience.window.shared;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.ProviderClass;
import dev.sluice.runtime.resilience.ClusterEvent;
import dev.sluice.runtime.resilience.ClusterEvents;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.window.ProviderCooldownEntry;
import dev.sluice.runtime.resilience.window.ProviderCooldowns;
import java.util.List;
import java.util.function.Supplier;

/**
 * Shared mode of the window gate (NF-6), a decorator over one instance's gate: a failure that
 * starts a provider cooldown announces it on the {@link WindowBoard}, so that every instance holds
 * the provider until it ends; a success that ends one clears it there and tells the other
 * instances ({@link ClusterEvent.WindowEnded}), which end their own windows of the provider; a
 * provider this instance does not hold is held for as long as the board says; a clear of every
 * entry clears the board. Connection-level entries (PC-3) stay each instance's own, as do the
 * failure windows themselves.
 */
public final class SharedProviderCooldowns implements ProviderCooldowns {

    private final ProviderCooldowns local;
    private final WindowBoard board;
    private final ClusterEvents events;
    private final Supplier<ResilienceSettings> settings;

    private SharedProviderCooldowns(ProviderCooldowns local, WindowBoard board, ClusterEvents events, Supplier<ResilienceSettings> settings) {
        this.local = requireNonNull(local, "local is null");
        this.board = requireNonNull(board, "board is null");
        this.events = requireNonNull(events, "events is null");
        this.settings = requireNonNull(settings, "settings is null");
    }

    /**
     * Shares a local window gate.
     *
     * @param local this instance's gate
     * @param board where provider-level cooldowns are announced to the other instances
     * @param events where a success that ends a cooldown is announced
     * @param settings the current settings (the board is asked only while the gate is enabled)
     * @return the shared gate
     */
    public static ProviderCooldowns over(ProviderCooldowns local, WindowBoard board, ClusterEvents events,
            Supplier<ResilienceSettings> settings) {
        return new SharedProviderCooldowns(local, board, events, settings);
    }

    @Override
    public long recordFailure(String provider, ProviderClass cls, String connectionId) {
        long started = local.recordFailure(provider, cls, connectionId);
        if (started > 0) {
            // this failure started a cooldown; the other instances hold the provider until it ends
            board.cooling(provider, started);
        }
        return started;
    }

    @Override
    public boolean recordSuccess(String provider, String connectionId) {
        boolean ended = local.recordSuccess(provider, connectionId);
        if (ended) {
            // the success ended the cooldown this instance announced; the provider answers for every instance
            board.cleared(provider);
            events.publish(new ClusterEvent.WindowEnded(provider));
        }
        return ended;
    }

    @Override
    public long providerRemainingMs(String provider, ProviderClass cls) {
        long own = local.providerRemainingMs(provider, cls);
        if (own > 0 || !settings.get().providerCooldown().enabled()) {
            return own;
        }
        return board.remainingMs(provider);
    }

    @Override
    public long connectionRemainingMs(String provider, String connectionId) {
        return local.connectionRemainingMs(provider, connectionId);
    }

    @Override
    public List<ProviderCooldownEntry> entries() {
        return local.entries();
    }

    @Override
    public void clear() {
        board.clearedAll();
        local.clear();
    }

    @Override
    public void clearConnection(String connectionId) {
        local.clearConnection(connectionId);
    }

    @Override
    public void onClusterEvent(ClusterEvent event, long now) {
        local.onClusterEvent(event, now);
    }
}
