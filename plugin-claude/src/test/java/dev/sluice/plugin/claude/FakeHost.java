package dev.sluice.plugin.claude;

import dev.sluice.api.CredentialUpdates;
import dev.sluice.api.HostContext;
import dev.sluice.api.upstream.UpstreamHttp;
import dev.sluice.testkit.plugin.TestingHostContext;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;

/**
 * Host contexts for the executor tests: the plugin test kit's {@link TestingHostContext} over a
 * fake upstream, a clock (fixed at {@link #NOW} unless given) and given settings, optionally with
 * credential updates.
 */
final class FakeHost {

    static final Instant NOW = Instant.ofEpochSecond(1_767_225_600L);

    private FakeHost() {
    }

    static HostContext create(UpstreamHttp http, Map<String, String> settings) {
        return create(http, settings, InstantSource.fixed(NOW), null);
    }

    static HostContext create(UpstreamHttp http, Map<String, String> settings, InstantSource clock, CredentialUpdates updates) {
        return TestingHostContext.builder("claude").http(http).settings(settings).clock(clock).credentialUpdates(updates).build();
    }
}
