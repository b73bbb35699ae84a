package dev.sluice.runtime.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.routing.ClientLiveness;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Issue 28: what runs when a client connection closes. */
class GoneActionsTest {

    @Test
    void registeredActionsRunOnceWhenTheClientGoes() {
        GoneActions actions = new GoneActions();
        AtomicInteger ran = new AtomicInteger();
        actions.add(ran::incrementAndGet);
        actions.add(ran::incrementAndGet);
        assertThat(ran).hasValue(0);
        actions.gone();
        assertThat(ran).hasValue(2);
        actions.gone();
        assertThat(ran).as("once").hasValue(2);
        assertThat(actions.pending()).isZero();
    }

    @Test
    void anActionRegisteredAfterTheCloseRunsAtOnce() {
        GoneActions actions = new GoneActions();
        actions.gone();
        AtomicInteger ran = new AtomicInteger();
        actions.add(ran::incrementAndGet);
        assertThat(ran).hasValue(1);
    }

    @Test
    void aClosedActionNeverRunsAndIsForgotten() {
        GoneActions actions = new GoneActions();
        AtomicInteger ran = new AtomicInteger();
        ClientLiveness.GoneWatch w = actions.add(ran::incrementAndGet);
        w.close();
        assertThat(actions.pending()).isZero();
        actions.gone();
        assertThat(ran).hasValue(0);
    }
}
