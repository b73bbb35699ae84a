package dev.sluice.plugin.codex;

import dev.sluice.api.ExecutorCustomizer;
import dev.sluice.api.ExecutorFactory;
import dev.sluice.api.HostContext;
import dev.sluice.api.ProviderExecutor;

/**
 * Creates the {@code codex-responses} executor: chat translated here, {@code /v1/responses} passed
 * through the host's built-in Responses executor with the account headers added.
 */
final class CodexExecutorFactory implements ExecutorFactory {

    @Override
    public String name() {
        return CodexPlugin.EXECUTOR;
    }

    @Override
    public ProviderExecutor create(HostContext host) {
        ProviderExecutor passthrough = host.builtinExecutor(HostContext.OPENAI_RESPONSES,
                ExecutorCustomizer.none().withHeaders(new AccountHeaders())).orElseThrow(() -> new IllegalStateException(
                        "the host offers no adjustable '" + HostContext.OPENAI_RESPONSES + "' executor; the codex plugin needs one"));
        return new CodexExecutor(host.http(), host.clock(), passthrough, host.logger());
    }
}
