package dev.sluice.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ExecutorCustomizerTest {

    @Test
    void noneChangesNothing() {
        assertThat(ExecutorCustomizer.none().isEmpty()).isTrue();
        assertThat(ExecutorCustomizer.none().headers()).isEmpty();
        assertThat(ExecutorCustomizer.none().chatBody().apply("{}")).isEqualTo("{}");
    }

    @Test
    void withMethodsReturnCopiesAndALaterHeaderReplacesAnEarlierOneInAnyCase() {
        ExecutorCustomizer base = ExecutorCustomizer.none().withHeader("X-Client", "a");
        ExecutorCustomizer changed = base.withHeader("x-client", "b").withHeader("User-Agent", "acme/1");

        assertThat(base.headers()).isEqualTo(Map.of("X-Client", "a"));
        assertThat(changed.headers()).isEqualTo(Map.of("x-client", "b", "User-Agent", "acme/1"));
        assertThat(changed.isEmpty()).isFalse();
    }

    @Test
    void bodyRewritesComposeInOrder() {
        ExecutorCustomizer c = ExecutorCustomizer.none().withChatBody(j -> j + "1").withChatBody(j -> j + "2");

        assertThat(c.chatBody().apply("x")).isEqualTo("x12");
    }

    @Test
    void credentialAndFramingHeadersAndInvalidValuesAreRefused() {
        assertThatThrownBy(() -> ExecutorCustomizer.none().withHeader("Authorization", "Bearer x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("credentials come from the connection");
        assertThatThrownBy(() -> ExecutorCustomizer.none().withHeader("content-type", "text/plain"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ExecutorCustomizer.none().withHeader("Bad Name", "v")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ExecutorCustomizer.none().withHeader("X-Ok", "a\r\nInjected: 1"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("CR, LF");
    }

    @Test
    void aHostWithoutCustomisationAnswersEmptyRatherThanIgnoringIt() {
        HostContext host = new HostContext() {
            @Override public dev.sluice.api.upstream.UpstreamHttp http() { return null; }
            @Override public java.time.InstantSource clock() { return null; }
            @Override public PluginSettings settings() { return null; }
            @Override public System.Logger logger() { return null; }
            @Override public java.util.Optional<ProviderExecutor> builtinExecutor(String name) {
                return java.util.Optional.of(call -> null);
            }
        };

        assertThat(host.builtinExecutor(HostContext.OPENAI_COMPATIBLE, ExecutorCustomizer.none())).isPresent();
        assertThat(host.builtinExecutor(HostContext.OPENAI_COMPATIBLE, ExecutorCustomizer.none().withHeader("X-A", "1"))).isEmpty();
    }

    @Test
    void computedHeadersAndQueryParametersAddUpAndMakeTheCustomizerNonEmpty_issue27() {
        RequestValues org = (target, call) -> Map.of("X-Org", target.setting("org"));
        RequestValues project = (target, call) -> Map.of("project", target.setting("project"));
        ExecutorCustomizer c = ExecutorCustomizer.none().withHeaders(org).withQueryParameters(project).withHeader("X-A", "1");

        assertThat(c.isEmpty()).isFalse();
        assertThat(c.computedHeaders()).containsExactly(org);
        assertThat(c.queryParameters()).containsExactly(project);
        assertThat(c.headers()).containsOnlyKeys("X-A");
        assertThat(ExecutorCustomizer.none().computedHeaders()).isEmpty();
        UpstreamTarget target = new UpstreamTarget("c1", "p", ProviderClass.APIKEY, "https://x", new Credentials("k", null, null, null),
                Map.of("org", "o-1", "seats", 3));
        assertThat(target.setting("org")).isEqualTo("o-1");
        assertThat(target.setting("seats")).isEqualTo("3");
        assertThat(target.setting("missing")).isNull();
        assertThatThrownBy(() -> ExecutorCustomizer.checkHeader("Content-Length", "1")).isInstanceOf(IllegalArgumentException.class);
    }
}
