package dev.sluice.runtime.http;

import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The operator dashboard's static files under {@code /ui/} (issue 18). No key is needed to load
 * them: they hold no data, and the page asks for the admin key before it calls the admin API.
 *
 * <p>The files are resources of this module ({@code dev/sluice/runtime/ui/}); a named module can
 * always read its own resources, so nothing is opened to anyone. File names are checked against a
 * strict pattern before any lookup, so no path can leave that folder.
 */
final class DashboardService implements HttpService {

    /** The only path the dashboard is served from; {@code /ui} redirects here. */
    static final String ROOT = "/ui/";

    /**
     * Scripts, styles and images only from this origin, API calls only to it, nothing inline
     * (the page's JavaScript lives in files), no framing, no forms posted anywhere.
     */
    static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
            + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

    private static final String RESOURCE_FOLDER = "/dev/sluice/runtime/ui/";
    private static final Pattern FILE_NAME = Pattern.compile("[a-z0-9][a-z0-9-]*\\.(html|js|css|svg|png)");
    private static final Map<String, String> CONTENT_TYPES = Map.of(
            "html", "text/html; charset=utf-8",
            "js", "text/javascript; charset=utf-8",
            "css", "text/css; charset=utf-8",
            "svg", "image/svg+xml",
            "png", "image/png");
    private static final HeaderName CSP = HeaderNames.create("Content-Security-Policy");
    private static final HeaderName REFERRER_POLICY = HeaderNames.create("Referrer-Policy");
    private static final HeaderName FRAME_OPTIONS = HeaderNames.create("X-Frame-Options");
    private static final HeaderName CONTENT_TYPE_OPTIONS = HeaderNames.create("X-Content-Type-Options");

    /** Files are read once; the JAR does not change while the server runs. */
    private final Map<String, Optional<Asset>> assets = new ConcurrentHashMap<>();

    @Override
    public void routing(HttpRules rules) {
        rules.get("/", this::serve).get("/{file}", this::serve);
    }

    /**
     * {@code GET /ui}: the page's relative links need the trailing slash.
     *
     * @param req the request
     * @param res the response
     */
    static void redirect(ServerRequest req, ServerResponse res) {
        res.status(Status.MOVED_PERMANENTLY_301).header(HeaderNames.LOCATION, ROOT).send();
    }

    private void serve(ServerRequest req, ServerResponse res) {
        String path = req.path().absolute().rawPath();
        if (!path.startsWith(ROOT)) {
            redirect(req, res);
            return;
        }
        String name = path.length() == ROOT.length() ? "index.html" : path.substring(ROOT.length());
        Asset asset = FILE_NAME.matcher(name).matches() ? assets.computeIfAbsent(name, DashboardService::load).orElse(null) : null;
        if (asset == null) {
            throw ApiException.notFound("not_found", "No dashboard file " + path + ".");
        }
        res.header(HeaderNames.CONTENT_TYPE, asset.contentType());
        // Names carry no version, so the browser revalidates every time: a 304 after an upgrade is
        // impossible, a stale script after one is too.
        res.header(HeaderNames.CACHE_CONTROL, "no-cache");
        res.header(HeaderNames.ETAG, asset.etag());
        res.header(CSP, CONTENT_SECURITY_POLICY);
        res.header(CONTENT_TYPE_OPTIONS, "nosniff");
        res.header(REFERRER_POLICY, "no-referrer");
        res.header(FRAME_OPTIONS, "DENY");
        if (req.headers().first(HeaderNames.IF_NONE_MATCH).map(asset.etag()::equals).orElse(false)) {
            res.status(Status.NOT_MODIFIED_304).send();
            return;
        }
        res.send(asset.bytes());
    }

    private static Optional<Asset> load(String name) {
        try (InputStream in = DashboardService.class.getResourceAsStream(RESOURCE_FOLDER + name)) {
            if (in == null) {
                return Optional.empty();
            }
            byte[] bytes = in.readAllBytes();
            String type = CONTENT_TYPES.get(name.substring(name.lastIndexOf('.') + 1));
            return Optional.of(new Asset(bytes, type, "\"" + sha256(bytes).substring(0, 32) + "\""));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the dashboard file " + name, e);
        }
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always available", e);
        }
    }

    private record Asset(byte[] bytes, String contentType, String etag) {
    }
}
