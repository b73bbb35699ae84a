package dev.sluice.runtime.resilience.classify;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.rules.RestatementRule;
import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.TransportError;
import dev.sluice.api.upstream.TransportErrorKind;
import dev.sluice.api.upstream.UpstreamError;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Status restatement before classification (SPEC §16.1 RS-1…RS-4), with agentrouter's rule. */
public class StatusRestatementTest {

    /** The rule plugin-agentrouter contributes (its own test asserts it field by field). */
    public static final RestatementRule AGENTROUTER = new RestatementRule("agentrouter-quota-misstatus", "agentrouter", Set.of(400, 403), 429,
            List.of("用户额度不足", "额度不足"), List.of("无权访问模型"), 60_000);

    private final StatusRestatement restatement = new StatusRestatement(List.of(AGENTROUTER));

    private static UpstreamError error(int status, String body) {
        return UpstreamError.builder(new ResponseHead(status, Map.of("x-request-id", List.of("r1")))).body(body).build();
    }

    @ParameterizedTest
    @ValueSource(ints = {400, 403})
    void eachFromStatusWithEachMarkerBecomes429WithTheRulesClientWindow_RS1_RS3(int status) {
        for (String body : List.of("{\"error\":{\"message\":\"用户额度不足\"}}", "{\"error\":{\"message\":\"当前分组额度不足，请稍后再试\"}}")) {
            StatusRestatement.Result r = restatement.apply("agentrouter", error(status, body), 0);
            assertThat(r.rule()).isEqualTo(AGENTROUTER);
            UpstreamError restated = (UpstreamError) r.failure();
            assertThat(restated.status()).isEqualTo(429);
            assertThat(restated.body()).isEqualTo(body);
            assertThat(restated.head().first("x-request-id")).contains("r1");
            assertThat(r.clientRetryAfterMs()).isEqualTo(60_000);
        }
    }

    @Test
    void anExcludeMarkerVetoesTheRule_RS4() {
        UpstreamError denied = error(403, "{\"error\":{\"message\":\"无权访问模型 claude-opus-4-1，额度不足\"}}");
        StatusRestatement.Result r = restatement.apply("agentrouter", denied, 0);
        assertThat(r.rule()).isNull();
        assertThat(r.failure()).isSameAs(denied);
        assertThat(r.clientRetryAfterMs()).isNull();
    }

    @Test
    void otherStatusesOtherProvidersAndTransportFailuresAreLeftAlone_RS2() {
        UpstreamError already429 = error(429, "{\"error\":{\"message\":\"用户额度不足\"}}");
        assertThat(restatement.apply("agentrouter", already429, 0).failure()).isSameAs(already429);
        UpstreamError elsewhere = error(403, "{\"error\":{\"message\":\"用户额度不足\"}}");
        assertThat(restatement.apply("glm", elsewhere, 0).failure()).isSameAs(elsewhere);
        UpstreamError plain403 = error(403, "{\"error\":{\"message\":\"forbidden\"}}");
        assertThat(restatement.apply("agentrouter", plain403, 0).failure()).isSameAs(plain403);
        TransportError reset = new TransportError(TransportErrorKind.CONNECTION_RESET, "reset");
        assertThat(restatement.apply("agentrouter", reset, 0).failure()).isSameAs(reset);
    }

    @Test
    void anUpstreamRetryAfterBeatsTheRulesDefault_RS3() {
        UpstreamError withHint = UpstreamError.builder(new ResponseHead(403, Map.of("retry-after", List.of("12")))).body("{\"error\":{\"message\":\"用户额度不足\"}}").build();
        assertThat(restatement.apply("agentrouter", withHint, 0).clientRetryAfterMs()).isEqualTo(12_000);
    }

    @Test
    void theRestated429IsClassifiedAsARetryableQuota_RS1() {
        FailureClassifier classifier = new FailureClassifier(java.time.InstantSource.fixed(java.time.Instant.EPOCH), ErrorRules.NONE);
        UpstreamError original = error(403, "{\"error\":{\"message\":\"用户额度不足\"}}");
        // unrestated, the client would see a 403, which agents treat as permanent
        assertThat(classifier.classify("agentrouter", dev.sluice.api.ProviderClass.APIKEY, original).status()).isEqualTo(403);
        Verdict v = classifier.classify("agentrouter", dev.sluice.api.ProviderClass.APIKEY,
                restatement.apply("agentrouter", original, 0).failure());
        assertThat(v.reason()).isEqualTo(dev.sluice.api.rules.FailureReason.QUOTA_EXHAUSTED);
        assertThat(v.status()).isEqualTo(429);
        assertThat(v.fallback()).isTrue();
        // no internal hint: the 60 s is the client's, the cooldown is the connection's own (3 s base)
        assertThat(v.retryAfterMs()).isNull();
    }
}
