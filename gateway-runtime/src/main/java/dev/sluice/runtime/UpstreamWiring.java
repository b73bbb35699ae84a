package dev.sluice.runtime;

import dev.sluice.api.HostContext;
import dev.sluice.api.ProviderExecutor;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.config.UpstreamLimits;
import dev.sluice.runtime.io.AnswerBuffers;
import dev.sluice.runtime.io.AnswerWatch;
import dev.sluice.runtime.openai.OpenAiCodec;
import dev.sluice.runtime.openai.OpenAiCompatibleExecutor;
import dev.sluice.runtime.upstream.EgressRoutes;
import dev.sluice.runtime.upstream.SocketUpstreamHttp;
import java.time.InstantSource;
import java.util.Map;

/**
 * The composition root's way out (issue 35): the answer memory bounds, the egress routes every
 * executor sends through, and the built-in OpenAI-compatible executors.
 *
 * @param buffers the bounds every upstream answer is read within (issues 19, 28)
 * @param http the egress routes: a connection's localAddress / proxyUrl (§16.3)
 * @param codec the OpenAI codec
 * @param openAi the built-in OpenAI-compatible executor
 * @param builtinExecutors the executors plugins' descriptors may name ({@link HostContext#OPENAI_COMPATIBLE}, …)
 * @param direct the client of connections without a route (its idle connections closed with the rest)
 */
record UpstreamWiring(AnswerBuffers buffers, EgressRoutes http, OpenAiCodec codec, OpenAiCompatibleExecutor openAi,
        Map<String, ProviderExecutor> builtinExecutors, SocketUpstreamHttp direct) implements AutoCloseable {

    static UpstreamWiring create(SluiceConfig config, InstantSource clock) {
        UpstreamLimits limits = config.upstreamLimits();
        // issue 19: every upstream answer is read within the operator's memory bounds; issue 28: and within its silence bounds
        AnswerBuffers buffers = new AnswerBuffers(limits.maxAnswerBytes(), limits.maxEventBytes(), limits.answerBufferBytes(),
                limits.maxStreamBytes(), new AnswerWatch(limits.bodyIdleTimeoutMs(), limits.answerDeadlineMs(), System::nanoTime));
        // issue 26: the lean socket client; routed connections (local address, proxy) keep the JDK client
        SocketUpstreamHttp direct = new SocketUpstreamHttp(config.connectTimeout(), buffers, null, System::nanoTime);
        EgressRoutes http = EgressRoutes.create(direct,
                config.connectTimeout(), config.egressProbeUrl(), clock, buffers);
        OpenAiCodec codec = new OpenAiCodec();
        OpenAiCompatibleExecutor openAi = OpenAiCompatibleExecutor.create(http, codec);
        return new UpstreamWiring(buffers, http, codec, openAi, Map.of(HostContext.OPENAI_COMPATIBLE, openAi,
                HostContext.OPENAI_RESPONSES, openAi.withResponsesPassthrough()), direct);
    }

    @Override
    public void close() {
        http.close();
        direct.close();
    }
}
