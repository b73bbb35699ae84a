package dev.sluice.runtime.http;

import dev.sluice.runtime.telemetry.SluiceMetrics;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.nio.charset.StandardCharsets;

/**
 * {@code GET /metrics}: the Prometheus text exposition. Behind the admin key like the admin API,
 * unless {@code SLUICE_METRICS_PUBLIC} / {@code metrics.public} opens it (for a scraper on a
 * trusted network that cannot send a bearer token): the metrics carry no secret and no key, only
 * provider ids, connection ids and upstream model names.
 */
final class MetricsService implements HttpService {

    /** The Prometheus text format's media type. */
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final Authenticator auth;
    private final SluiceMetrics metrics;
    private final boolean open;

    MetricsService(Authenticator auth, SluiceMetrics metrics, boolean open) {
        this.auth = auth;
        this.metrics = metrics;
        this.open = open;
    }

    @Override
    public void routing(HttpRules rules) {
        rules.get("/", this::scrape);
    }

    private void scrape(ServerRequest req, ServerResponse res) {
        if (!open) {
            auth.admin(req);
        }
        res.header(HeaderNames.CONTENT_TYPE, CONTENT_TYPE);
        res.header(HeaderNames.CACHE_CONTROL, "no-store");
        res.send(metrics.scrape().getBytes(StandardCharsets.UTF_8));
    }
}
