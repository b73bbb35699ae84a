package dev.sluice.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.TransportError;
import dev.sluice.api.upstream.TransportErrorKind;
import dev.sluice.api.upstream.UpstreamError;
import dev.sluice.api.upstream.UpstreamRequest;
import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Upstream request/response/failure records (SPEC SEC-2, SEC-5, FC-1). */
@SuppressWarnings("deprecation") // the positional forms kept for compiled plugins are tested too
class UpstreamTypesTest {

    private static final String SECRET = "sk-live-SECRET-0123456789";

    // ------------------------------------------------------------------ credentials

    @Test
    void credentialsToStringNeverShowsSecrets_SEC2() {
        Credentials c = new Credentials(SECRET, "access-" + SECRET, "refresh-" + SECRET, 1_700_000_000_000L);

        assertThat(c.toString()).doesNotContain(SECRET)
                .isEqualTo("Credentials[apiKey=***, accessToken=***, refreshToken=***, expiresAt=1700000000000]");
        assertThat(Credentials.NONE.toString())
                .isEqualTo("Credentials[apiKey=none, accessToken=none, refreshToken=none, expiresAt=null]");
    }

    @Test
    void bearerTokenPrefersANonEmptyAccessToken_SEC5() {
        assertThat(new Credentials("key", "token", null, null).bearerToken()).isEqualTo("token");
        assertThat(new Credentials("key", "", null, null).bearerToken()).isEqualTo("key");
        assertThat(new Credentials("key", null, null, null).bearerToken()).isEqualTo("key");
        assertThat(Credentials.NONE.bearerToken()).isNull();
    }

    // ------------------------------------------------------------------ requests

    @Test
    void upstreamRequestToStringNeverShowsHeaderValuesOrTheBody_SEC2() {
        UpstreamRequest r = new UpstreamRequest("POST", URI.create("https://api.example/v1/chat/completions"),
                Map.of("Authorization", "Bearer " + SECRET), ("{\"api_key\":\"" + SECRET + "\"}").getBytes(StandardCharsets.UTF_8),
                Duration.ofSeconds(30));

        assertThat(r.toString()).doesNotContain(SECRET)
                .isEqualTo("UpstreamRequest[POST https://api.example/v1/chat/completions, headers=[Authorization], body=39 bytes]");
    }

    @Test
    void upstreamRequestValidatesAndCopies_SEC5() {
        Map<String, String> headers = new HashMap<>(Map.of("a", "1"));
        UpstreamRequest r = new UpstreamRequest("GET", URI.create("http://h/"), headers, null, Duration.ofSeconds(1));
        headers.put("b", "2");

        assertThat(r.headers()).containsExactlyEntriesOf(Map.of("a", "1"));
        assertThat(r.body()).isEmpty();
        assertThatNullPointerException().isThrownBy(() -> new UpstreamRequest(null, URI.create("http://h/"), Map.of(), null,
                Duration.ZERO)).withMessage("method is null");
        assertThatNullPointerException().isThrownBy(() -> new UpstreamRequest("GET", null, Map.of(), null, Duration.ZERO))
                .withMessage("uri is null");
        assertThatNullPointerException().isThrownBy(() -> new UpstreamRequest("GET", URI.create("http://h/"), null, null,
                Duration.ZERO)).withMessage("headers is null");
        assertThatNullPointerException().isThrownBy(() -> new UpstreamRequest("GET", URI.create("http://h/"), Map.of(), null, null))
                .withMessage("timeout is null");
    }

    @Test
    void upstreamTargetDropsNullDataAndNeverShowsCredentials_SEC2() {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("lowPriorityMode", true);
        data.put("organizationUUID", null);
        UpstreamTarget t = new UpstreamTarget("c1", "claude", ProviderClass.OAUTH, "https://api.anthropic.com",
                new Credentials(null, SECRET, null, null), data);

        assertThat(t.providerSpecificData()).containsExactlyEntriesOf(Map.of("lowPriorityMode", true));
        assertThat(t.toString()).doesNotContain(SECRET);
        assertThat(new UpstreamTarget("c", "p", ProviderClass.LOCAL, "http://l", Credentials.NONE, null).providerSpecificData()).isEmpty();
        assertThatNullPointerException().isThrownBy(() -> new UpstreamTarget("c", "p", ProviderClass.LOCAL, "http://l", null, null))
                .withMessage("credentials is null");
    }

    // ------------------------------------------------------------------ responses and failures

    @Test
    void responseHeadLowerCasesAndMergesHeaderNames_FC3() {
        Map<String, List<String>> h = new LinkedHashMap<>();
        h.put("Retry-After", List.of("5"));
        h.put("retry-after", List.of("6"));
        h.put("X-Other", List.of());
        ResponseHead head = new ResponseHead(429, h);

        assertThat(head.headers()).containsOnlyKeys("retry-after", "x-other");
        assertThat(head.headers().get("retry-after")).containsExactlyInAnyOrder("5", "6");
        assertThat(head.first("RETRY-AFTER")).isPresent();
        assertThat(head.first("x-other")).isEmpty();
        assertThat(head.first("missing")).isEmpty();
        assertThat(new ResponseHead(200, null).headers()).isEmpty();
    }

    @Test
    void upstreamErrorDescribesWithItsMessageElseTheBody_FC1() {
        ResponseHead h = new ResponseHead(503, Map.of());
        assertThat(new UpstreamError(h, "raw", null, null, "Overloaded").describe()).isEqualTo("HTTP 503: Overloaded");
        assertThat(new UpstreamError(h, "  raw body \n", null, null, " ").describe()).isEqualTo("HTTP 503: raw body");
        assertThat(new UpstreamError(h, null, null, null, null).describe()).isEqualTo("HTTP 503");
        assertThat(new UpstreamError(h, null, null, null, null).body()).isEmpty();
        assertThat(new UpstreamError(h, "", null, null, null).status()).isEqualTo(503);
        assertThatNullPointerException().isThrownBy(() -> new UpstreamError(null, "", null, null, null)).withMessage("head is null");
    }

    @Test
    void upstreamErrorDescriptionIsTruncatedTo500Characters_FC1() {
        String d = new UpstreamError(new ResponseHead(500, Map.of()), "x".repeat(2_000), null, null, null).describe();
        assertThat(d).isEqualTo("HTTP 500: " + "x".repeat(500) + "…");
    }

    @Test
    void transportErrorsAreClassifiedByExceptionType_FC1() {
        assertThat(TransportError.of(new UnknownHostException("api.example")).kind()).isEqualTo(TransportErrorKind.DNS);
        assertThat(TransportError.of(new ConnectException("Connection refused")).kind()).isEqualTo(TransportErrorKind.CONNECT_FAILED);
        assertThat(TransportError.of(new NoRouteToHostException("no route")).kind()).isEqualTo(TransportErrorKind.CONNECT_FAILED);
        assertThat(TransportError.of(new SocketTimeoutException("Read timed out")).kind()).isEqualTo(TransportErrorKind.TIMEOUT);
        assertThat(TransportError.of(new InterruptedIOException("interrupted")).kind()).isEqualTo(TransportErrorKind.TIMEOUT);
        // an upstream that broke the protocol, e.g. a stream event past the gateway's size limit ("closed" in it notwithstanding)
        assertThat(TransportError.of(new java.net.ProtocolException("event too long; stream closed")).kind()).isEqualTo(TransportErrorKind.PROTOCOL);
    }

    @Test
    void otherIoExceptionsAreClassifiedByTheirMessage_FC1() {
        assertThat(TransportError.of(new IOException("Connection reset by peer")).kind()).isEqualTo(TransportErrorKind.CONNECTION_RESET);
        assertThat(TransportError.of(new IOException("Socket closed")).kind()).isEqualTo(TransportErrorKind.CONNECTION_RESET);
        assertThat(TransportError.of(new EOFException("Unexpected EOF")).kind()).isEqualTo(TransportErrorKind.CONNECTION_RESET);
        assertThat(TransportError.of(new IOException("Broken pipe")).kind()).isEqualTo(TransportErrorKind.CONNECTION_RESET);
        assertThat(TransportError.of(new IOException("request timed out")).kind()).isEqualTo(TransportErrorKind.TIMEOUT);
        assertThat(TransportError.of(new IOException("Read Timeout")).kind()).isEqualTo(TransportErrorKind.TIMEOUT);
        assertThat(TransportError.of(new IOException("connect: Connection refused")).kind()).isEqualTo(TransportErrorKind.CONNECT_FAILED);
        assertThat(TransportError.of(new IOException("something odd")).kind()).isEqualTo(TransportErrorKind.OTHER);
        assertThat(TransportError.of(new IOException()).kind()).isEqualTo(TransportErrorKind.OTHER);
    }

    @Test
    void transportErrorMessageNamesTheExceptionAndDescribeNamesTheKind_FC1() {
        TransportError e = TransportError.of(new UnknownHostException("api.example"));
        assertThat(e.message()).isEqualTo("UnknownHostException: api.example");
        assertThat(e.describe()).isEqualTo("transport failure (dns): UnknownHostException: api.example");
        assertThat(TransportError.of(new IOException()).message()).isEqualTo("IOException");
        assertThat(new TransportError(TransportErrorKind.PROTOCOL, null).message()).isEqualTo("protocol");
        assertThatNullPointerException().isThrownBy(() -> new TransportError(null, "m")).withMessage("kind is null");
    }
}
