package dev.sluice.runtime.telemetry;

import dev.sluice.runtime.resilience.breaker.BreakerState;
import dev.sluice.runtime.resilience.breaker.BreakerView;
import dev.sluice.runtime.resilience.breaker.CircuitBreakers;
import dev.sluice.runtime.resilience.cooldown.ConnectionCooldowns;
import dev.sluice.runtime.resilience.gate.ConnectionGates;
import dev.sluice.runtime.resilience.lockout.ModelLockout;
import dev.sluice.runtime.resilience.lockout.ModelLockouts;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ConnectionStore;
import dev.sluice.runtime.store.ProxyLogRow;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The Prometheus metrics of {@code GET /metrics}, on Micrometer's Prometheus registry. Counters and
 * histograms move as requests and attempts finish; the resilience gauges (breakers, connections,
 * lockouts, queues) are read from the live state at scrape time, the way
 * {@code GET /api/monitoring/health} reads it, so they can never drift from it. The names are a
 * contract with operators' dashboards: keep them.
 */
public final class SluiceMetrics implements AutoCloseable {

    /** The upstream latency and time-to-first-byte buckets, seconds. */
    static final Duration[] LATENCY_BUCKETS = {Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250),
        Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10),
        Duration.ofSeconds(30), Duration.ofSeconds(60), Duration.ofSeconds(120)};
    /** The queue wait buckets, seconds. */
    static final Duration[] QUEUE_BUCKETS = {Duration.ofMillis(10), Duration.ofMillis(100), Duration.ofMillis(500), Duration.ofSeconds(1),
        Duration.ofSeconds(5), Duration.ofSeconds(15), Duration.ofSeconds(30), Duration.ofSeconds(60)};
    /** The connection states of {@code sluice_connections}. */
    static final List<String> CONNECTION_STATES = List.of("active", "cooling", "terminal", "disabled");

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Labels labels = new Labels();
    private final ConnectionStore connections;
    private final CircuitBreakers breakers;
    private final ModelLockouts lockouts;
    private final ConnectionGates gates;
    private final InstantSource clock;
    private final MultiGauge breakerState;
    private final MultiGauge connectionStates;
    private final MultiGauge modelLockouts;
    private final MultiGauge queueDepth;
    private final Timer queueWait;
    private final JvmGcMetrics gc = new JvmGcMetrics();

    /**
     * Creates the registry, the JVM metrics and the scrape-time gauges.
     *
     * @param connections the connections
     * @param breakers the provider breakers
     * @param lockouts the model lockouts
     * @param gates the connections' queues
     * @param clock decides which cooldowns are running
     */
    public SluiceMetrics(ConnectionStore connections, CircuitBreakers breakers, ModelLockouts lockouts, ConnectionGates gates,
            InstantSource clock) {
        this.connections = connections;
        this.breakers = breakers;
        this.lockouts = lockouts;
        this.gates = gates;
        this.clock = clock;
        new JvmMemoryMetrics().bindTo(registry);
        gc.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        breakerState = MultiGauge.builder("sluice.breaker.state")
                .description("1 for the current state of a provider breaker, 0 for the others").register(registry);
        connectionStates = MultiGauge.builder("sluice.connections")
                .description("Connections per provider by state: active, cooling (in a cooldown), terminal, disabled").register(registry);
        modelLockouts = MultiGauge.builder("sluice.model.lockouts").description("Active model lockouts per provider").register(registry);
        queueDepth = MultiGauge.builder("sluice.queue.depth").description("Requests waiting in a connection's queue").register(registry);
        queueWait = Timer.builder("sluice.queue.wait").description("Time requests waited in a connection's queue for a permit")
                .serviceLevelObjectives(QUEUE_BUCKETS).register(registry);
    }

    /**
     * A client request finished.
     *
     * @param r the request
     * @param status the HTTP status answered
     */
    void request(RequestRecord r, int status) {
        String provider = Labels.provider(r.provider());
        String model = labels.model(r.provider(), r.model());
        counters.computeIfAbsent(new MeterKey("sluice.requests", r.api(), provider, model, status), k -> Counter.builder(k.name())
                .description("Client requests by API, provider, upstream model and HTTP status")
                .tags("api", r.api(), "provider", provider, "model", model, "status", Integer.toString(status))
                .register(registry)).increment();
        if (r.firstByteNanos() > 0 && r.provider() != null) {
            timer("sluice.time.to.first.byte", "Time from a request's arrival to the first byte of its served answer", provider)
                    .record(Math.max(0, r.firstByteNanos() - r.startedNanos()), TimeUnit.NANOSECONDS);
        }
        if (r.streamEnding() != null && r.streamEnding() != dev.sluice.runtime.stream.StreamEnding.COMPLETED) {
            Counter.builder("sluice.stream.aborts").description("Streams that did not complete, by reason")
                    .tags("reason", r.streamEnding().name().toLowerCase(java.util.Locale.ROOT)).register(registry).increment();
        }
        TokenCounts t = r.tokens();
        if (t.known() && r.provider() != null) {
            tokens(provider, model, "prompt", t.prompt());
            tokens(provider, model, "completion", t.completion());
            tokens(provider, model, "cached", t.cached());
            tokens(provider, model, "reasoning", t.reasoning());
        }
    }

    private void tokens(String provider, String model, String kind, Long n) {
        if (n != null) {
            counters.computeIfAbsent(new MeterKey("sluice.tokens", kind, provider, model, 0), k -> Counter.builder(k.name())
                    .description("Tokens the upstreams reported, by kind")
                    .tags("provider", provider, "model", model, "kind", kind).register(registry)).increment(n);
        }
    }

    /**
     * An upstream attempt finished.
     *
     * @param row its attempt-log row
     */
    void attempt(ProxyLogRow row) {
        String provider = Labels.provider(row.provider());
        String outcome = row.errorType() == null ? "ok" : row.errorType();
        counters.computeIfAbsent(new MeterKey("sluice.upstream.attempts", outcome, provider, null, 0), k -> Counter.builder(k.name())
                .description("Upstream attempts by outcome: ok or the failure reason")
                .tags("provider", provider, "outcome", outcome).register(registry)).increment();
        timer("sluice.upstream.latency", "Time an upstream attempt took (a stream: to its first event)", provider)
                .record(Math.max(0, row.latencyMs()), TimeUnit.MILLISECONDS);
    }

    /**
     * A request waited at a connection's queue.
     *
     * @param nanos how long
     */
    public void queueWait(long nanos) {
        queueWait.record(Math.max(0, nanos), TimeUnit.NANOSECONDS);
    }

    private Timer timer(String name, String description, String provider) {
        return timers.computeIfAbsent(new MeterKey(name, null, provider, null, 0), k -> Timer.builder(name).description(description)
                .tags("provider", provider).serviceLevelObjectives(LATENCY_BUCKETS).register(registry));
    }

    /**
     * The labels of one per-request meter: looked up in a map of our own instead of through
     * {@code Builder.register}, which builds and sorts the meter's id on every call (the request
     * path records five meters per request).
     */
    private record MeterKey(String name, String label, String provider, String model, int status) {
    }

    private final java.util.concurrent.ConcurrentMap<MeterKey, Counter> counters = new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.concurrent.ConcurrentMap<MeterKey, Timer> timers = new java.util.concurrent.ConcurrentHashMap<>();

    /** The state of the Redis meters, held strongly (see {@link #bindRedis}). */
    private Object[] redisState;

    /**
     * Shared mode (issue 37): whether this instance runs on its local fallback because Redis cannot be
     * reached ({@code sluice_redis_fallback}, 1 or 0) and how often it switched each way
     * ({@code sluice_redis_switches_total{to="local"|"shared"}}), read at scrape time.
     *
     * @param fallback 1 while on the local fallback, else 0
     * @param toLocal switches to the local fallback since start
     * @param toShared switches back to shared mode since start
     */
    public void bindRedis(java.util.function.LongSupplier fallback, java.util.function.LongSupplier toLocal,
            java.util.function.LongSupplier toShared) {
        // Micrometer holds a meter's state object weakly: these method references must be held here
        redisState = new Object[] {fallback, toLocal, toShared};
        io.micrometer.core.instrument.Gauge.builder("sluice.redis.fallback", fallback, f -> f.getAsLong())
                .description("1 while this instance runs on its local fallback because Redis cannot be reached, else 0")
                .strongReference(true).register(registry); // the suppliers are method references nothing else holds
        io.micrometer.core.instrument.FunctionCounter.builder("sluice.redis.switches", toLocal, f -> f.getAsLong()).tags("to", "local")
                .description("Switches between shared mode and the local fallback").register(registry);
        io.micrometer.core.instrument.FunctionCounter.builder("sluice.redis.switches", toShared, f -> f.getAsLong()).tags("to", "shared")
                .description("Switches between shared mode and the local fallback").register(registry);
    }

    /**
     * The Prometheus text exposition, with the gauges read now.
     *
     * @return the text
     */
    public String scrape() {
        refreshGauges();
        return registry.scrape();
    }

    private void refreshGauges() {
        long now = clock.millis();
        List<MultiGauge.Row<?>> breakerRows = new ArrayList<>();
        for (BreakerView v : breakers.views()) {
            for (BreakerState s : BreakerState.values()) {
                breakerRows.add(MultiGauge.Row.of(Tags.of("provider", v.key().provider(), "host", v.key().host(), "state", s.name()),
                        v.state() == s ? 1 : 0));
            }
        }
        breakerState.register(breakerRows, true);

        Map<String, int[]> byProvider = new TreeMap<>();
        List<MultiGauge.Row<?>> queueRows = new ArrayList<>();
        for (Connection c : connections.list()) {
            int[] counts = byProvider.computeIfAbsent(c.provider(), k -> new int[CONNECTION_STATES.size()]);
            counts[CONNECTION_STATES.indexOf(state(c, now))]++;
            queueRows.add(MultiGauge.Row.of(Tags.of("connection", c.id()), gates.snapshot(c.id()).queued()));
        }
        List<MultiGauge.Row<?>> connectionRows = new ArrayList<>();
        byProvider.forEach((provider, counts) -> {
            for (int i = 0; i < counts.length; i++) {
                connectionRows.add(MultiGauge.Row.of(Tags.of("provider", provider, "state", CONNECTION_STATES.get(i)), counts[i]));
            }
        });
        connectionStates.register(connectionRows, true);
        queueDepth.register(queueRows, true);

        Map<String, Integer> locks = new TreeMap<>();
        byProvider.keySet().forEach(p -> locks.put(p, 0));
        for (ModelLockout l : lockouts.active()) {
            locks.merge(l.provider(), 1, Integer::sum);
        }
        List<MultiGauge.Row<?>> lockRows = new ArrayList<>();
        locks.forEach((p, n) -> lockRows.add(MultiGauge.Row.of(Tags.of("provider", p), n)));
        modelLockouts.register(lockRows, true);
    }

    /** active / cooling / terminal / disabled, as the health view counts them. */
    static String state(Connection c, long now) {
        if (!c.enabled()) {
            return "disabled";
        }
        if (ConnectionCooldowns.isTerminal(c.state().testStatus())) {
            return "terminal";
        }
        Long until = c.state().rateLimitedUntil();
        return until != null && until > now ? "cooling" : "active";
    }

    @Override
    public void close() {
        gc.close();
        registry.close();
    }
}
