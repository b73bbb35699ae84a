package dev.sluice.distribution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.RecordedRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 37, §1: the permits of a {@code maxConcurrent: 1} connection between two instances from
 * the built zip, on one PostgreSQL and one Redis, under the default permit expiry (5 s, renewed
 * every second). A {@code kill -9} of the holder frees the permit within 5 s; a {@code SIGTERM}
 * lets the request under way finish within the shutdown grace, or ends it then, and the permit is
 * free within 1 s of the exit; a request much longer than the expiry, and a 3 s stop-the-world
 * pause of its instance ({@code SIGSTOP}/{@code SIGCONT}), keep it. Each test prints its figure.
 */
class SharedLivenessEndToEndIT extends SharedModeFixture {

    /** The default permit expiry (not overridden here): what the figures are measured against. */
    private static final long PERMIT_TTL_MS = 5_000;

    private List<SluiceClient> sharedPair(Map<String, String> extra) {
        Map<String, String> env = new java.util.HashMap<>(extra);
        env.put("SLUICE_REDIS_URL", redis.url());
        return twoInstances(env);
    }

    /** One {@code maxConcurrent: 1} connection on mock 0 whose waiting requests wait up to a minute. */
    private void oneSlotConnection(SluiceClient a, SluiceClient b) {
        oneSlotConnection(a, b, 60_000);
    }

    /** One {@code maxConcurrent: 1} connection on mock 0 whose waiting requests wait up to {@code maxWaitMs}. */
    private void oneSlotConnection(SluiceClient a, SluiceClient b, long maxWaitMs) {
        connection(a, mocks.get(0), Map.of("maxConcurrent", 1, "rateLimitOverrides", Map.of("maxWaitMs", maxWaitMs)));
        awaitConnections(b, 1);
    }

    /** A chat request whose client waits {@code wait} (the fixture's waits 30 s). */
    private HttpResponse<String> chat(SluiceClient c, Duration wait) {
        return send(java.net.http.HttpRequest.newBuilder(c.base().resolve("/v1/chat/completions")).timeout(wait)
                .header("Authorization", "Bearer " + adminKey).header("Content-Type", "application/json")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString(SluiceClient.toJson(SluiceClient.chat("alpha/m", false)))).build());
    }

    @Test
    void theKilledHoldersPermitIsFreeForTheOtherInstanceWithinFiveSeconds_issue37() throws Exception {
        List<SluiceClient> lb = sharedPair(Map.of());
        SluiceClient a = lb.get(0);
        SluiceClient b = lb.get(1);
        oneSlotConnection(a, b);
        // one request through B first, so that its first request's cold start is not counted in the figure
        assertThat(chat(b, adminKey).statusCode()).isEqualTo(200);
        assertThat(mocks.get(0).takeRequest(Duration.ofSeconds(5))).isNotNull();
        mocks.get(0).enqueue(MockResponse.hang());
        CompletableFuture.runAsync(() -> catchThrowable(() -> chat(a, adminKey)));
        assertThat(mocks.get(0).takeRequest(Duration.ofSeconds(10))).as("A holds the only permit").isNotNull();
        CompletableFuture<Long> exited = processes.get(0).onExit().thenApply(p -> System.nanoTime());
        CompletableFuture<HttpResponse<String>> onB = CompletableFuture.supplyAsync(() -> chat(b, adminKey));
        processes.get(0).kill();
        RecordedRequest bAtUpstream = mocks.get(0).takeRequest(Duration.ofSeconds(15));
        long bArrived = System.nanoTime();
        HttpResponse<String> servedB = onB.get(10, TimeUnit.SECONDS);
        long servedAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - exited.get());
        long freeMs = TimeUnit.NANOSECONDS.toMillis(bArrived - exited.get());
        System.out.printf("issue 37 figure: kill -9 of the holder -> B's waiting request reached the account %d ms after A's death"
                + " (answered %d ms after it; permit expiry %d ms, renewed every %d ms)%n", freeMs, servedAfterMs, PERMIT_TTL_MS,
                PERMIT_TTL_MS / 5);
        assertThat(bAtUpstream).isNotNull();
        assertThat(servedB.statusCode()).as(() -> b.describe(servedB)).isEqualTo(200);
        // the last renewal was at most a fifth of the expiry before the kill: the permit is free 4–5 s after it; B then needs
        // its next retry (2–25 ms apart) and its own routing, which a loaded CI machine stretches (measured here: 4.8–4.95 s)
        assertThat(freeMs).as("B waited for the dead request's permit to expire, no longer")
                .isGreaterThan(PERMIT_TTL_MS * 3 / 5).isLessThan(PERMIT_TTL_MS + 1_000);
    }

    @Test
    void onSigtermTheRequestUnderWayFinishesWithinTheGraceAndThePermitIsFreeWithinASecondOfTheExit_issue37() throws Exception {
        List<SluiceClient> lb = sharedPair(Map.of());
        SluiceClient a = lb.get(0);
        SluiceClient b = lb.get(1);
        mocks.get(0).enqueue(MockResponse.delayed(Duration.ofMillis(2_000), MockResponse.completion("finished in the grace")));
        oneSlotConnection(a, b);
        CompletableFuture<HttpResponse<String>> onA = CompletableFuture.supplyAsync(() -> chat(a, adminKey));
        assertThat(mocks.get(0).takeRequest(Duration.ofSeconds(10))).as("A holds the only permit").isNotNull();
        SluiceProcess stopping = processes.get(0);
        CompletableFuture<Long> exited = stopping.onExit().thenApply(p -> System.nanoTime());
        long term = System.nanoTime();
        stopping.signal("TERM");
        // A stops accepting at once
        await().atMost(Duration.ofSeconds(1)).until(() -> catchThrowable(() ->
                send(java.net.http.HttpRequest.newBuilder(a.base().resolve("/health/live")).timeout(Duration.ofSeconds(1)).build())) != null);
        CompletableFuture<HttpResponse<String>> onB = CompletableFuture.supplyAsync(() -> chat(b, adminKey));

        assertThat(a.expect(onA.get(10, TimeUnit.SECONDS), 200).at("/choices/0/message/content").asText()).isEqualTo("finished in the grace");
        RecordedRequest bAtUpstream = mocks.get(0).takeRequest(Duration.ofSeconds(10));
        long bArrived = System.nanoTime();
        assertThat(bAtUpstream).as("B's request reached the account").isNotNull();
        long exit = exited.get(10, TimeUnit.SECONDS);
        assertThat(b.expect(onB.get(10, TimeUnit.SECONDS), 200).toString()).isNotEmpty();
        long exitMs = TimeUnit.NANOSECONDS.toMillis(exit - term);
        long freeAfterExitMs = TimeUnit.NANOSECONDS.toMillis(bArrived - exit);
        System.out.printf("issue 37 figure: SIGTERM with a 2 s request under way -> A exited %d ms after the signal;"
                + " B's request reached the account %d ms after A's exit%n", exitMs, freeAfterExitMs);
        assertThat(exitMs).as("the request finished; the rest of the stop is quick").isLessThan(5_000);
        assertThat(freeAfterExitMs).as("the permit is free within 1 s of A's exit").isLessThan(1_000);
        assertThat(stopping.output()).contains("requests under way get 5000 ms to finish");
    }

    @Test
    void onSigtermARequestLongerThanTheGraceIsEndedAndThePermitIsFreeWithinASecondOfTheExit_issue37() throws Exception {
        List<SluiceClient> lb = sharedPair(Map.of("SLUICE_SHUTDOWN_GRACE_MS", "1000"));
        SluiceClient a = lb.get(0);
        SluiceClient b = lb.get(1);
        mocks.get(0).enqueue(MockResponse.hang());
        oneSlotConnection(a, b);
        CompletableFuture<Throwable> onA = CompletableFuture.supplyAsync(() -> catchThrowable(() -> {
            HttpResponse<String> r = chat(a, adminKey);
            throw new AssertionError("answered " + r.statusCode() + ": " + r.body());
        }));
        assertThat(mocks.get(0).takeRequest(Duration.ofSeconds(10))).as("A holds the only permit").isNotNull();
        SluiceProcess stopping = processes.get(0);
        CompletableFuture<Long> exited = stopping.onExit().thenApply(p -> System.nanoTime());
        CompletableFuture<HttpResponse<String>> onB = CompletableFuture.supplyAsync(() -> chat(b, adminKey));
        long term = System.nanoTime();
        stopping.signal("TERM");

        RecordedRequest bAtUpstream = mocks.get(0).takeRequest(Duration.ofSeconds(15));
        long bArrived = System.nanoTime();
        assertThat(bAtUpstream).as("B's request reached the account").isNotNull();
        long exit = exited.get(15, TimeUnit.SECONDS);
        assertThat(onB.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        assertThat(onA.get(10, TimeUnit.SECONDS)).as("A's client: its request was ended, not answered").isNotInstanceOf(AssertionError.class);
        long exitMs = TimeUnit.NANOSECONDS.toMillis(exit - term);
        long freeAfterExitMs = TimeUnit.NANOSECONDS.toMillis(bArrived - exit);
        System.out.printf("issue 37 figure: SIGTERM with a hung request, grace 1000 ms -> A exited %d ms after the signal;"
                + " B's request reached the account %d ms after A's exit%n", exitMs, freeAfterExitMs);
        assertThat(exitMs).as("the grace, then a quick end").isGreaterThanOrEqualTo(900).isLessThan(PERMIT_TTL_MS);
        assertThat(freeAfterExitMs).as("the permit is free within 1 s of A's exit, not after its expiry").isLessThan(1_000);
    }

    @Test
    void aRequestFourTimesTheExpiryAndAThreeSecondPauseOfItsInstanceKeepThePermit_issue37() throws Exception {
        List<SluiceClient> lb = sharedPair(Map.of());
        SluiceClient a = lb.get(0);
        SluiceClient b = lb.get(1);
        // 4 × the expiry; the issue's 90 s is the same renewal run longer: -Dsluice.it.longRequestMs=90000 (a manual run, see the note)
        long requestMs = Long.getLong("sluice.it.longRequestMs", 20_000);
        mocks.get(0).enqueue(MockResponse.delayed(Duration.ofMillis(requestMs), MockResponse.completion("long")));
        oneSlotConnection(a, b, Math.max(60_000, requestMs + 30_000)); // B waits for the whole of A's request
        Duration clientWait = Duration.ofMillis(requestMs + 30_000);
        CompletableFuture<HttpResponse<String>> onA = CompletableFuture.supplyAsync(() -> chat(a, clientWait));
        assertThat(mocks.get(0).takeRequest(Duration.ofSeconds(10))).as("A holds the only permit").isNotNull();
        long aArrived = System.nanoTime();
        CompletableFuture<HttpResponse<String>> onB = CompletableFuture.supplyAsync(() -> chat(b, clientWait));
        // a stop-the-world pause of the holder, 5 s into its request: no renewal for 3 s (+ up to 1 s since the last)
        await().pollDelay(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(6)).until(() -> true);
        processes.get(0).signal("STOP");
        long paused = System.nanoTime();
        try {
            await().pollDelay(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4)).until(() -> true);
        } finally {
            processes.get(0).signal("CONT");
        }
        long pauseMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - paused);

        RecordedRequest bAtUpstream = mocks.get(0).takeRequest(clientWait);
        long bArrivedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - aArrived);
        assertThat(bAtUpstream).as("B's request reached the account once A's ended").isNotNull();
        assertThat(a.expect(onA.get(30, TimeUnit.SECONDS), 200).at("/choices/0/message/content").asText()).isEqualTo("long");
        assertThat(onB.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        System.out.printf("issue 37 figure: a %d ms request with a %d ms SIGSTOP of its instance -> B reached the account %d ms"
                + " after A's request started (permit expiry %d ms)%n", requestMs, pauseMs, bArrivedMs, PERMIT_TTL_MS);
        assertThat(bArrivedMs).as("B waited for the whole of A's request: the permit was never lost").isGreaterThanOrEqualTo(requestMs - 200);
        assertThat(mocks.get(0).maxConcurrentRequests()).as("in flight at once upstream").isEqualTo(1);
        assertThat(a.serverOutput()).doesNotContain("had expired before its renewal");
    }
}
