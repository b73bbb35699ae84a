/**
 * Test fixtures for provider plugins (test scope only): {@link dev.sluice.testkit.plugin.TestingHostContext},
 * a host context with the runtime's real built-in executors and a test clock;
 * {@link dev.sluice.testkit.plugin.RuleEvaluator}, the runtime's verdict on a status, headers and
 * body under a plugin's rules; and, from {@code sluice-testkit}, {@code MockUpstream} and
 * {@code TestClock}.
 */
package dev.sluice.testkit.plugin;
