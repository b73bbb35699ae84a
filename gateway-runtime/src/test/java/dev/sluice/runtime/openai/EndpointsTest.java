package dev.sluice.runtime.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import org.junit.jupiter.api.Test;

class EndpointsTest {

    private final Endpoints endpoints = new Endpoints();

    @Test
    void aPathUnderABaseUrlIsParsedOnceAndAnsweredFromMemoryAfter() {
        URI first = endpoints.of("http://127.0.0.1:8080/v1", "/chat/completions");
        assertThat(first).isEqualTo(URI.create("http://127.0.0.1:8080/v1/chat/completions"));
        assertThat(endpoints.of("http://127.0.0.1:8080/v1", "/chat/completions")).isSameAs(first);
        assertThat(endpoints.of("http://127.0.0.1:8080/v1", "/embeddings")).isEqualTo(URI.create("http://127.0.0.1:8080/v1/embeddings"));
    }

    @Test
    void aTrailingSlashOfTheBaseUrlIsNotDoubled() {
        assertThat(endpoints.of("https://api.example.test/v1/", "/models")).isEqualTo(URI.create("https://api.example.test/v1/models"));
    }

    @Test
    void theCacheStaysBoundedAndStillAnswersRightAfterStartingAgain() {
        for (int i = 0; i <= Endpoints.MAX; i++) {
            assertThat(endpoints.of("http://127.0.0.1:" + (1000 + i), "/chat/completions").getPort()).isEqualTo(1000 + i);
        }
        assertThat(endpoints.of("http://127.0.0.1:1000", "/chat/completions")).isEqualTo(URI.create("http://127.0.0.1:1000/chat/completions"));
    }

    @Test
    void aBaseUrlThatMakesNoUriIsRefusedAsBefore() {
        assertThatThrownBy(() -> endpoints.of("http://bad host", "/x")).isInstanceOf(IllegalArgumentException.class);
    }
}
