/**
 * Test fixtures for provider plugins (test scope only): {@link dev.sluice.testkit.plugin.TestingHostContext},
 * a host context with the runtime's real built-in executors and a test clock;
 * {@link dev.sluice.testkit.plugin.RuleEvaluator}, the runtime's verdict on a status, headers and
 * body under a plugin's rules; {@link dev.sluice.testkit.plugin.LoginDriver}, the host's own login
 * flows for a plugin's {@code OAuthLogin} against a mock authorization server ({@link dev.sluice.testkit.plugin.PkceLogin},
 * {@link dev.sluice.testkit.plugin.DeviceLogin}, {@link dev.sluice.testkit.plugin.LoginResult}); and, from
 * {@code sluice-testkit}, {@code MockUpstream} and
 * {@code TestClock}.
 */
package dev.sluice.testkit.plugin;
