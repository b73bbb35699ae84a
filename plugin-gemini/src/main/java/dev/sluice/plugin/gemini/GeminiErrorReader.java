package dev.sluice.plugin.gemini;

import dev.sluice.toolkit.json.Json;
import dev.sluice.toolkit.json.JsonException;

import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.RetryHint;
import dev.sluice.api.upstream.UpstreamError;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Google error bodies → canonical errors. Google answers
 * {@code {"error":{"code":429,"message":"…","status":"RESOURCE_EXHAUSTED","details":[…]}}} (the
 * streaming endpoint sometimes wraps it in a one-element array). {@code status} becomes the
 * error's code and type, {@code message} its message, and a {@code google.rpc.RetryInfo} detail's
 * {@code retryDelay} a structured retry hint marked {@link RetryHint#GOOGLE_RPC_RETRY_INFO} (SPEC
 * FC-3, RQ-4). Other details ({@code QuotaFailure} violations, {@code Help} links,
 * {@code ErrorInfo}) stay in the body, which the error keeps whole.
 */
final class GeminiErrorReader {

    /** The {@code @type} of Google's retry detail. */
    static final String RETRY_INFO_TYPE = "type.googleapis.com/google.rpc.RetryInfo";

    /** A protobuf JSON duration: seconds with up to nine fractional digits and an {@code s}. */
    private static final Pattern DURATION = Pattern.compile("\\d{1,12}(\\.\\d{1,9})?s");

    private GeminiErrorReader() {
    }

    /**
     * Reads an error answer.
     *
     * @param head status and headers
     * @param body the body text (anything: a non-JSON body leaves code, type and message null)
     * @return the error
     */
    static UpstreamError read(ResponseHead head, String body) {
        Map<String, Object> error = errorObject(body);
        if (error == null) {
            return UpstreamError.builder(head).body(body).build();
        }
        String status = Json.string(error, "status");
        Long code = Json.number(error, "code");
        String errorCode = status != null ? status : code != null ? code.toString() : null;
        return UpstreamError.builder(head).body(body).errorCode(errorCode).errorType(status).message(Json.string(error, "message"))
                .retryHint(retryHint(error)).build();
    }

    /**
     * The {@code error} object of a body, if it has one.
     *
     * @param body the body text
     * @return the error object, or null
     */
    static Map<String, Object> errorObject(String body) {
        Object root;
        try {
            root = Json.parse(body.strip());
        } catch (JsonException e) {
            return null;
        }
        if (root instanceof List<?> list && !list.isEmpty()) {
            root = list.get(0);
        }
        return Json.object(root, "error");
    }

    /**
     * The retry delay of a {@code RetryInfo} detail.
     *
     * @param error the {@code error} object
     * @return the hint, or null when there is no readable one
     */
    static RetryHint retryHint(Map<String, Object> error) {
        for (Object detail : Json.array(error, "details")) {
            if (RETRY_INFO_TYPE.equals(Json.string(detail, "@type"))) {
                Long ms = millis(Json.get(detail, "retryDelay"));
                if (ms != null) {
                    return new RetryHint(ms, RetryHint.GOOGLE_RPC_RETRY_INFO);
                }
            }
        }
        return null;
    }

    /**
     * A protobuf duration in milliseconds, rounded up (retrying early only earns another 429).
     *
     * @param delay {@code "86399s"}, {@code "1.5s"}, or the object form {@code {"seconds":…,"nanos":…}}
     * @return milliseconds, or null when unreadable or negative
     */
    static Long millis(Object delay) {
        BigDecimal seconds;
        if (delay instanceof String s) {
            String t = s.strip();
            if (!DURATION.matcher(t).matches()) {
                return null;
            }
            seconds = new BigDecimal(t.substring(0, t.length() - 1));
        } else if (delay instanceof Map<?, ?> m && m.get("seconds") != null) {
            try {
                seconds = new BigDecimal(String.valueOf(m.get("seconds")));
                if (m.get("nanos") instanceof Number n) {
                    seconds = seconds.add(BigDecimal.valueOf(n.longValue(), 9));
                }
            } catch (NumberFormatException e) {
                return null;
            }
            if (seconds.signum() < 0 || seconds.compareTo(BigDecimal.valueOf(1_000_000_000_000L)) > 0) {
                return null;
            }
        } else {
            return null;
        }
        return seconds.movePointRight(3).setScale(0, RoundingMode.CEILING).longValueExact();
    }

    /**
     * A short description of an error object, for protocol failures.
     *
     * @param root an object holding {@code error}
     * @return {@code STATUS: message}
     */
    static String summary(Map<String, Object> root) {
        Map<String, Object> error = Json.object(root, "error");
        String status = Json.string(error, "status");
        String message = Json.string(error, "message");
        String s = (status == null ? "error" : status) + (message == null ? "" : ": " + message);
        return s.length() > 300 ? s.substring(0, 300) + "…" : s;
    }
}
