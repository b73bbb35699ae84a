package dev.sluice.runtime.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.runtime.upstream.HelidonUpstreamHttp;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ModelsEndpointTest {

    private final ModelsEndpoint endpoint = new ModelsEndpoint(new ObjectMapper(), Duration.ofSeconds(5));

    @Test
    void readsTheIdsOfAnOpenAiModelListInOrderWithoutDuplicates() {
        assertThat(endpoint.ids(bytes("{\"object\":\"list\",\"data\":[{\"id\":\"b\"},{\"id\":\"a\"},{\"id\":\"b\"},{\"id\":7},{}]}")))
                .containsExactly("b", "a");
    }

    @Test
    void skipsIdsNoClientCouldName() {
        String longId = "x".repeat(ModelsEndpoint.MAX_ID_LENGTH + 1);
        assertThat(endpoint.ids(bytes("{\"data\":[{\"id\":\"\"},{\"id\":\"has space\"},{\"id\":\"" + longId + "\"},{\"id\":\"ok\"}]}")))
                .containsExactly("ok");
    }

    @Test
    void keepsAtMostMaxIds() {
        StringBuilder b = new StringBuilder("{\"data\":[");
        for (int i = 0; i < ModelsEndpoint.MAX_IDS + 10; i++) {
            b.append(i == 0 ? "" : ",").append("{\"id\":\"m").append(i).append("\"}");
        }
        assertThat(endpoint.ids(bytes(b.append("]}").toString()))).hasSize(ModelsEndpoint.MAX_IDS);
    }

    @Test
    void anAnswerThatIsNoModelListIsADiscoveryFailureNamingIt() {
        assertThatThrownBy(() -> endpoint.ids(bytes("<html>"))).isInstanceOf(ModelsEndpoint.DiscoveryException.class)
                .hasMessage("GET /models answered no JSON");
        assertThatThrownBy(() -> endpoint.ids(bytes("{\"models\":[]}"))).hasMessage("GET /models answered no 'data' array");
    }

    @Test
    void theUrlIsTheBaseUrlWithModelsAppended() {
        assertThat(ModelsEndpoint.uri("http://h/v1").toString()).isEqualTo("http://h/v1/models");
        assertThat(ModelsEndpoint.uri("http://h/v1/").toString()).isEqualTo("http://h/v1/models");
    }

    @Test
    void getsTheListWithTheBearerAndReportsAStatusWithoutTheBody() throws Exception {
        try (MockUpstream upstream = MockUpstream.start().models("m1", "m2")) {
            HelidonUpstreamHttp http = new HelidonUpstreamHttp(Duration.ofSeconds(2), Duration.ofSeconds(5));
            assertThat(endpoint.read(http, upstream.baseUrl() + "/v1", "sk-abc")).isEqualTo(List.of("m1", "m2"));
            assertThat(upstream.modelsRequests().getFirst().header("authorization")).isEqualTo("Bearer sk-abc");
            assertThat(upstream.modelsRequests().getFirst().header("user-agent")).isNull();

            upstream.modelsResponse(MockResponse.status(401, "{\"error\":{\"message\":\"bad key sk-abc\"}}"));
            assertThatThrownBy(() -> endpoint.read(http, upstream.baseUrl() + "/v1", "sk-abc"))
                    .isInstanceOf(ModelsEndpoint.DiscoveryException.class).hasMessage("GET /models answered HTTP 401");
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
