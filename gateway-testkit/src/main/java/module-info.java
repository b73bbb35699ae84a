/**
 * Test fixtures for Sluice and for plugin authors: {@link dev.sluice.testkit.MockUpstream}, a
 * scriptable OpenAI-compatible upstream on a loopback ephemeral port, and
 * {@link dev.sluice.testkit.TestClock}, a clock tests advance by hand.
 */
module sluice.testkit {
    exports dev.sluice.testkit;
}
