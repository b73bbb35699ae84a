package dev.sluice.bench;

import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ConnectionState;
import dev.sluice.runtime.store.ConnectionStore;
import dev.sluice.runtime.store.NewConnection;
import dev.sluice.runtime.store.OAuthTokens;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A read-only {@link ConnectionStore} over one fixed, immutable snapshot: {@link #list()} always
 * returns the same list instance, as the SQLite store does between writes, so the selector keeps
 * its pre-sorted per-provider arrays. Writes are not part of the measured path and are refused.
 */
final class FixedConnectionStore implements ConnectionStore {

    private final List<Connection> snapshot;
    private final Map<String, Connection> byId;

    FixedConnectionStore(List<Connection> connections) {
        this.snapshot = List.copyOf(connections);
        this.byId = snapshot.stream().collect(Collectors.toUnmodifiableMap(Connection::id, Function.identity()));
    }

    @Override
    public List<Connection> list() {
        return snapshot;
    }

    @Override
    public Optional<Connection> find(String id) {
        return Optional.ofNullable(byId.get(id));
    }

    @Override
    public Connection create(NewConnection fields) {
        throw new UnsupportedOperationException("read-only benchmark store");
    }

    @Override
    public Optional<Connection> update(String id, NewConnection fields, boolean rateLimitProtection) {
        throw new UnsupportedOperationException("read-only benchmark store");
    }

    @Override
    public Optional<Connection> updateState(String id, ConnectionState state) {
        throw new UnsupportedOperationException("read-only benchmark store");
    }

    @Override
    public Optional<Connection> updateOAuth(String id, OAuthTokens tokens) {
        throw new UnsupportedOperationException("read-only benchmark store");
    }

    @Override
    public Optional<Connection> updateRateLimitProtection(String id, boolean enabled) {
        throw new UnsupportedOperationException("read-only benchmark store");
    }

    @Override
    public boolean delete(String id) {
        throw new UnsupportedOperationException("read-only benchmark store");
    }
}
