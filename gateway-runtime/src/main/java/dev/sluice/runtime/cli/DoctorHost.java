package dev.sluice.runtime.cli;

import dev.sluice.api.CredentialUpdates;
import dev.sluice.api.HostContext;
import dev.sluice.api.ProviderExecutor;
import dev.sluice.api.upstream.UpstreamHttp;
import dev.sluice.runtime.openai.OpenAiCodec;
import dev.sluice.runtime.openai.OpenAiCompatibleExecutor;
import dev.sluice.runtime.plugin.DefaultHostContext;
import java.io.IOException;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;

/**
 * The host context {@code doctor} hands a plugin's executor factories (issue 27): the plugin's own
 * settings and the built-in executors, as in the server, but an upstream client that refuses to
 * send, because doctor checks that executors start and must never call an upstream.
 */
final class DoctorHost {

    private static final UpstreamHttp NO_SENDING = request -> {
        throw new IOException("bin/sluice doctor sends nothing upstream");
    };
    private static final CredentialUpdates NO_UPDATES = (connectionId, access, refresh, expiresAt) -> false;

    /** Executors are only created, never run, so no time passes for them; the real clock stays in Main. */
    private static final InstantSource NO_TIME = InstantSource.fixed(Instant.EPOCH);

    private DoctorHost() {
    }

    static HostContext of(String pluginName, Map<String, String> settings) {
        OpenAiCompatibleExecutor openAi = OpenAiCompatibleExecutor.create(NO_SENDING, new OpenAiCodec());
        Map<String, ProviderExecutor> builtins = Map.of(HostContext.OPENAI_COMPATIBLE, openAi,
                HostContext.OPENAI_RESPONSES, openAi.withResponsesPassthrough());
        return DefaultHostContext.builder(pluginName, NO_SENDING, NO_TIME, settings, builtins).credentialUpdates(NO_UPDATES).build();
    }
}
