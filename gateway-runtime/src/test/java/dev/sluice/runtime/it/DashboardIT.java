package dev.sluice.runtime.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The dashboard's static files under /ui/ (issue 18): served from the runtime JAR without a key. */
class DashboardIT {

    @TempDir
    Path dir;
    SluiceHarness sluice;

    @BeforeEach
    void start() {
        sluice = new SluiceHarness(dir);
    }

    @AfterEach
    void stop() {
        sluice.close();
    }

    @Test
    void indexIsServedWithoutAKeyAsHtmlUnderAStrictPolicy() {
        HttpResponse<String> r = sluice.send("GET", "/ui/", null, null);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
        // issue 33: the page is rendered by app.js (Preact + htm) into #app; the login form's testids are in it
        assertThat(r.body()).contains("<div id=\"app\">").contains("<script type=\"module\" src=\"app.js\"></script>");
        assertThat(sluice.send("GET", "/ui/app.js", null, null).body()).contains("data-testid=\"admin-key\"").contains("data-testid=\"login\"");
        String csp = r.headers().firstValue("Content-Security-Policy").orElseThrow();
        assertThat(csp).contains("default-src 'none'").contains("script-src 'self'").contains("connect-src 'self'")
                .contains("frame-ancestors 'none'").doesNotContain("unsafe-inline").doesNotContain("unsafe-eval");
        assertThat(r.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
        assertThat(r.headers().firstValue("Cache-Control")).hasValue("no-cache");
        assertThat(r.headers().firstValue("ETag")).isPresent();
        // no inline script anywhere: the policy would block it
        assertThat(r.body().replace("<script type=\"module\" src=\"app.js\"></script>", "")).doesNotContain("<script");
    }

    @Test
    void theBarePathRedirectsToTheFolder() {
        HttpResponse<String> r = sluice.send("GET", "/ui", null, null);
        assertThat(r.statusCode()).isEqualTo(301);
        assertThat(r.headers().firstValue("Location")).hasValue("/ui/");
    }

    @Test
    void assetsLoadWithTheirContentTypes() {
        Map<String, String> types = Map.ofEntries(
                // issue 33: the vendored libraries are served by Sluice itself, nothing comes from elsewhere
                Map.entry("/ui/preact.js", "text/javascript; charset=utf-8"),
                Map.entry("/ui/preact-hooks.js", "text/javascript; charset=utf-8"),
                Map.entry("/ui/htm.js", "text/javascript; charset=utf-8"),
                Map.entry("/ui/uplot.js", "text/javascript; charset=utf-8"),
                Map.entry("/ui/uplot.css", "text/css; charset=utf-8"),
                Map.entry("/ui/lib.js", "text/javascript; charset=utf-8"),
                Map.entry("/ui/index.html", "text/html; charset=utf-8"),
                Map.entry("/ui/app.js", "text/javascript; charset=utf-8"),
                Map.entry("/ui/chart.js", "text/javascript; charset=utf-8"),
                Map.entry("/ui/app.css", "text/css; charset=utf-8"),
                Map.entry("/ui/favicon.svg", "image/svg+xml"));
        types.forEach((path, type) -> {
            HttpResponse<String> r = sluice.send("GET", path, null, null);
            assertThat(r.statusCode()).as(path).isEqualTo(200);
            assertThat(r.headers().firstValue("Content-Type")).as(path).hasValue(type);
            assertThat(r.body()).as(path).isNotBlank();
        });
        assertThat(sluice.send("GET", "/ui/lib.js", null, null).body()).contains("sessionStorage").doesNotContain("localStorage");
        assertThat(sluice.send("GET", "/ui/preact-hooks.js", null, null).body()).contains("from\"./preact.js\"");
    }

    @Test
    void anUnchangedFileIsNotSentAgain() {
        String etag = sluice.send("GET", "/ui/app.js", null, null).headers().firstValue("ETag").orElseThrow();
        HttpResponse<String> r = sluice.send("GET", "/ui/app.js", null, null, Map.of("If-None-Match", etag));
        assertThat(r.statusCode()).isEqualTo(304);
        assertThat(r.body()).isEmpty();
    }

    @Test
    void unknownOrEscapingAssetsAre404() {
        for (String path : new String[] {"/ui/nope.js", "/ui/missing.html", "/ui/..%2Fhttp%2FDashboardService.class",
                "/ui/DashboardService.class", "/ui/sub/app.js", "/ui/.hidden.js"}) {
            HttpResponse<String> r = sluice.send("GET", path, null, null);
            assertThat(r.statusCode()).as(path).isEqualTo(404);
            assertThat(r.headers().firstValue("Content-Type")).as(path).hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
        }
    }

    @Test
    void otherMethodsAre405() {
        HttpResponse<String> r = sluice.send("POST", "/ui/", null, "{}");
        assertThat(r.statusCode()).isEqualTo(405);
        assertThat(r.headers().firstValue("Allow")).hasValue("GET");
    }

    @Test
    void theDataTheDashboardShowsStillNeedsTheAdminKey() {
        assertThat(sluice.send("GET", "/api/monitoring/health", null, null).statusCode()).isEqualTo(401);
        assertThat(sluice.send("GET", "/api/monitoring/health", SluiceHarness.ADMIN_KEY, null).statusCode()).isEqualTo(200);
    }
}
