package dev.sluice.testkit.plugin;

import static java.util.Objects.requireNonNull;

import dev.sluice.runtime.oauth.FlowView;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A device-code login the host started ({@link LoginDriver#startDevice()}): the user code and
 * where the operator enters it, then the host's polls. The host polls only when a status is read
 * and its interval has passed (the server's {@code interval}, lengthened by each
 * {@code slow_down}), so the test drives time: {@link #poll()} reads the status at the clock's
 * present time, {@link #runToEnd()} advances the {@link dev.sluice.testkit.TestClock} one step at a time until
 * the flow ends. Nothing sleeps.
 */
public final class DeviceLogin {

    /** The clock step of {@link #runToEnd()}: device intervals are whole seconds. */
    public static final Duration STEP = Duration.ofSeconds(1);

    private final LoginDriver driver;
    private final FlowView started;
    private final Instant startedAt;
    private final int firstPoll;

    DeviceLogin(LoginDriver driver, FlowView started, Instant startedAt, int firstPoll) {
        this.driver = driver;
        this.started = started;
        this.startedAt = startedAt;
        this.firstPoll = firstPoll;
    }

    /** @return the flow id */
    public String flowId() {
        return started.id();
    }

    /** @return the code the operator enters */
    public String userCode() {
        return started.userCode();
    }

    /** @return where the operator enters it (the server's {@code verification_uri_complete} first) */
    public String verificationUri() {
        return started.verificationUri();
    }

    /** @return when the host gives up on the flow, on the driver's clock */
    public Instant expiresAt() {
        return Instant.ofEpochMilli(started.expiresAt());
    }

    /**
     * The status now, as {@code GET /api/oauth/flows/{id}}: the host polls the authorization
     * server once when its interval has passed, and not at all before.
     *
     * @return the status
     * @throws LoginRefusedException 404 once the flow is forgotten
     */
    public LoginResult poll() {
        return driver.result(driver.status(started.id()));
    }

    /**
     * Advances the clock by {@code by}, then reads the status once.
     *
     * @param by how far to advance
     * @return the status
     */
    public LoginResult advanceAndPoll(Duration by) {
        driver.clock().advance(requireNonNull(by, "by is null"));
        return poll();
    }

    /**
     * Advances the clock by {@link #STEP} and reads the status, again and again, until the flow
     * ends: connected, failed, or expired (at the latest when the host's 10 minutes are up). The
     * authorization server must have an answer for each poll the host makes.
     *
     * @return the end
     */
    public LoginResult runToEnd() {
        LoginResult r = poll();
        while (r.status() == LoginResult.Status.PENDING) {
            r = advanceAndPoll(STEP);
        }
        return r;
    }

    /**
     * When the host called the authorization server after the user code was issued — each poll,
     * and for a device protocol that ends in a code exchange that exchange — as offsets from the
     * start on the driver's clock. A server answering {@code interval: 5} then
     * {@code authorization_pending} twice and {@code slow_down} once sees polls at 5, 10, 15 and 25 s.
     *
     * @return the offsets, in order
     */
    public List<Duration> pollOffsets() {
        return driver.exchangesFrom(firstPoll).stream().map(e -> Duration.between(startedAt, e.at())).toList();
    }
}
