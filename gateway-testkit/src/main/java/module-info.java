/**
 * Test fixtures for Sluice and for plugin authors: {@link dev.sluice.testkit.MockUpstream}, a
 * scriptable OpenAI-compatible upstream on a loopback ephemeral port, and
 * {@link dev.sluice.testkit.TestClock}, a clock tests advance by hand.
 */
module sluice.testkit {
    // TestPostgres creates its databases over JDBC (the driver comes from the test's module path)
    requires java.sql;
    exports dev.sluice.testkit;
}
