package dev.sluice.runtime.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.runtime.routing.Caller;
import dev.sluice.runtime.routing.ClientLiveness;
import dev.sluice.runtime.session.LeaseCandidates;
import dev.sluice.runtime.session.LeaseOwner;
import dev.sluice.runtime.session.Leases;
import dev.sluice.runtime.session.SessionKeys;
import dev.sluice.runtime.store.Database;
import dev.sluice.runtime.store.JdbcLeaseStore;
import dev.sluice.runtime.store.LeaseRow;
import dev.sluice.testkit.TestClock;
import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import io.helidon.http.ServerRequestHeaders;
import io.helidon.http.WritableHeaders;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What ties a request to a connection beyond its key (SPEC SA-1, SL-3, SL-4), read from a request
 * without a server: the request and response are stand-ins that answer only headers, the leases a
 * real {@link Leases} over a fresh SQLite database on a test clock.
 */
class ClientAffinityTest {

    private static final String OWNER = "vlo_" + "A".repeat(43);
    private static final Caller CALLER = Caller.of("key1", false, Set.of(), ClientLiveness.ALWAYS);

    @TempDir
    Path dir;
    Database db;
    Leases leases;
    final TestClock clock = TestClock.create();
    final AtomicLong ttl = new AtomicLong(60_000);
    /** Connections the stand-in routing rules say cannot serve now. */
    final Set<String> cannotServe = new HashSet<>();
    final LeaseCandidates candidates = (model, keyId, allowed, ownerHash, only) -> {
        for (String c : List.of("c1", "c2")) {
            if ((only == null || only.equals(c)) && !cannotServe.contains(c) && !leases.heldByOther(c, ownerHash)) {
                return new LeaseCandidates.Free(c);
            }
        }
        return new LeaseCandidates.NoneEligible(false, "none");
    };
    ClientAffinity affinity;
    final Map<String, String> answered = new LinkedHashMap<>();

    @BeforeEach
    void open() {
        db = Database.open(dir);
        leases = new Leases(new JdbcLeaseStore(db), clock);
        affinity = new ClientAffinity(new ObjectMapper(), ttl::get, leases, candidates);
    }

    @AfterEach
    void close() {
        db.close();
    }

    private static ServerRequest request(Map<String, String> headers) {
        WritableHeaders<?> h = WritableHeaders.create();
        headers.forEach((name, value) -> h.add(HeaderNames.create(name), value));
        ServerRequestHeaders serverHeaders = ServerRequestHeaders.create(h);
        return (ServerRequest) Proxy.newProxyInstance(ServerRequest.class.getClassLoader(), new Class<?>[] {ServerRequest.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "headers" -> serverHeaders;
                    case "toString" -> "request";
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private ServerResponse response() {
        return (ServerResponse) Proxy.newProxyInstance(ServerResponse.class.getClassLoader(), new Class<?>[] {ServerResponse.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("header") && args.length == 2 && args[0] instanceof HeaderName n && args[1] instanceof String[] v) {
                        answered.put(n.defaultCase(), String.join(",", v));
                        return proxy;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    private Caller of(Map<String, String> headers, String body) {
        return affinity.of(request(headers), response(), CALLER, body.getBytes(StandardCharsets.UTF_8), "alpha/m");
    }

    private LeaseRow acquired() {
        Leases.Result r = leases.acquire(LeaseOwner.hash(OWNER), "key1", Set.of(), "alpha/m", Leases.DEFAULT_TTL_MS, candidates);
        assertThat(r).isInstanceOf(Leases.Held.class);
        return ((Leases.Held) r).lease();
    }

    private static int status(Throwable t) {
        return ((ApiException) t).status();
    }

    @Test
    void aRequestWithNeitherSessionNorLeaseKeepsItsCallerAsItIs() {
        assertThat(of(Map.of(), "{\"model\":\"alpha/m\"}")).isSameAs(CALLER);
        assertThat(answered).isEmpty();
    }

    @Test
    void aSessionHeaderBecomesTheCallersHashedSessionKey_SA1() {
        Caller c = of(Map.of("X-Session-Id", "  sess-42  "), "{}");
        assertThat(c.affinity()).isEqualTo(new Caller.Affinity(SessionKeys.hash("header:sess-42"), null, 0));
        assertThat(c.allowedConnections()).as("a session narrows nothing by itself").isEmpty();
    }

    @Test
    void aSessionInTheBodyIsReadWhenNoHeaderNamesOne_SA1() {
        Caller c = of(Map.of(), "{\"metadata\":{\"session_id\":\"s-9\"}}");
        assertThat(c.affinity().sessionKey()).isEqualTo(SessionKeys.hash("body:s-9"));
    }

    @Test
    void withSessionAffinityOffNoSessionIsRead_SA1() {
        ttl.set(0);
        assertThat(of(Map.of("X-Session-Id", "sess-42"), "{\"metadata\":{\"session_id\":\"s-9\"}}")).isSameAs(CALLER);
    }

    @Test
    void aBodyThatIsNotJsonHasNoSessionAndIsNoError() {
        assertThat(of(Map.of(), "not json {")).isSameAs(CALLER);
        assertThat(affinity.of(request(Map.of()), response(), CALLER, new byte[0], "alpha/m")).isSameAs(CALLER);
    }

    @Test
    void aMalformedOwnerTokenIsA400BeforeAnythingIsRouted_SL3() {
        assertThatThrownBy(() -> of(Map.of(LeaseOwner.HEADER, "vlo_short", LeaseOwner.GENERATION_HEADER, "1"), "{}"))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(400);
                    assertThat(e.code()).isEqualTo("LEASE_CONTEXT_INVALID");
                });
    }

    @Test
    void aManagedRequestNeedsAPositiveGeneration_SL3() {
        acquired();
        for (String g : new String[] {null, "0", "-1", "one", "1.5"}) {
            Map<String, String> h = new LinkedHashMap<>(Map.of(LeaseOwner.HEADER, OWNER));
            if (g != null) {
                h.put(LeaseOwner.GENERATION_HEADER, g);
            }
            assertThatThrownBy(() -> of(h, "{}")).as("generation %s", g).satisfies(t -> {
                assertThat(status(t)).isEqualTo(400);
                assertThat(((ApiException) t).code()).isEqualTo("LEASE_CONTEXT_INVALID");
            });
        }
    }

    @Test
    void aManagedRequestIsNarrowedToItsLeasedConnectionAndAnswersItsGeneration_SL3() {
        LeaseRow lease = acquired();
        Caller c = of(Map.of(LeaseOwner.HEADER, OWNER, LeaseOwner.GENERATION_HEADER, "1", "X-Session-Id", "s"), "{}");
        assertThat(c.allowedConnections()).containsExactly(lease.connectionId());
        assertThat(c.affinity()).isEqualTo(new Caller.Affinity(SessionKeys.hash("header:s"), LeaseOwner.hash(OWNER), 1));
        assertThat(answered).containsExactly(Map.entry(LeaseOwner.GENERATION_HEADER, "1"));
    }

    @Test
    void aStaleGenerationIsA409_SL3() {
        acquired();
        assertThatThrownBy(() -> of(Map.of(LeaseOwner.HEADER, OWNER, LeaseOwner.GENERATION_HEADER, "2"), "{}"))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(409);
                    assertThat(e.code()).isEqualTo("LEASE_FENCE_STALE");
                });
        assertThat(answered).isEmpty();
    }

    @Test
    void anOwnerWithoutALeaseIsA409_SL3() {
        assertThatThrownBy(() -> of(Map.of(LeaseOwner.HEADER, OWNER, LeaseOwner.GENERATION_HEADER, "1"), "{}"))
                .satisfies(t -> assertThat(status(t)).isEqualTo(409));
    }

    @Test
    void aLeaseWhoseConnectionCannotServeNowMovesAndTheRequestGoesWithIt_SL4() {
        LeaseRow lease = acquired();
        assertThat(lease.connectionId()).isEqualTo("c1");
        cannotServe.add("c1");
        Caller c = of(Map.of(LeaseOwner.HEADER, OWNER, LeaseOwner.GENERATION_HEADER, "1"), "{}");
        assertThat(c.allowedConnections()).containsExactly("c2");
        assertThat(c.affinity().leaseGeneration()).isEqualTo(2);
        assertThat(answered).containsEntry(LeaseOwner.GENERATION_HEADER, "2");
        assertThatThrownBy(() -> of(Map.of(LeaseOwner.HEADER, OWNER, LeaseOwner.GENERATION_HEADER, "1"), "{}"))
                .as("the old generation is fenced off").satisfies(t -> assertThat(status(t)).isEqualTo(409));
    }

    @Test
    void aLeaseNoConnectionCanServeStaysAndTheRequestGetsTheRoutingErrorOnIt_SL4() {
        acquired();
        cannotServe.addAll(List.of("c1", "c2"));
        Caller c = of(Map.of(LeaseOwner.HEADER, OWNER, LeaseOwner.GENERATION_HEADER, "1"), "{}");
        assertThat(c.allowedConnections()).containsExactly("c1");
        assertThat(answered).containsEntry(LeaseOwner.GENERATION_HEADER, "1");
    }

    @Test
    void headersAreReadTrimmedAndEmptyOnesAreAbsent() {
        acquired();
        Caller c = of(Map.of(LeaseOwner.HEADER, "  " + OWNER + " ", LeaseOwner.GENERATION_HEADER, " 1 ", "X-Session-Id", "   "), "{}");
        assertThat(c.affinity().sessionKey()).as("a blank session header names no session").isNull();
        assertThat(c.affinity().leaseGeneration()).isEqualTo(1);
    }
}
