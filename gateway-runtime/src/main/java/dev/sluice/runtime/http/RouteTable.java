package dev.sluice.runtime.http;

import io.helidon.http.Method;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.HttpRoute;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListSet;

/**
 * Every route the server registers, as {@code METHOD /path/{param}}: what {@code GET /openapi}
 * must describe (a test holds the document to it). Services are registered through
 * {@link #register}, which hands them to the real routing and lets them declare their routes a
 * second time into a recorder that only writes them down.
 */
public final class RouteTable {

    private final Set<String> routes = new ConcurrentSkipListSet<>();

    /** @return the routes, sorted: {@code GET /api/providers/{id}}, … */
    public List<String> routes() {
        return List.copyOf(routes);
    }

    /** Registers a service under a prefix, and writes down its routes. */
    void register(HttpRouting.Builder routing, String prefix, HttpService service) {
        routing.register(prefix, service);
        service.routing(new Recorder(prefix));
    }

    /** {@code /v1} + {@code /models/{+id}} → {@code /v1/models/{id}}; {@code /api/keys} + {@code /} → {@code /api/keys}. */
    static String join(String prefix, String path) {
        String p = prefix.endsWith("/") ? prefix.substring(0, prefix.length() - 1) : prefix;
        String joined = path == null || path.isEmpty() || path.equals("/") ? p : p + (path.startsWith("/") ? path : "/" + path);
        return (joined.isEmpty() ? "/" : joined).replace("{+", "{");
    }

    /** Writes routes down; routes nothing. Only the rule methods Sluice's services use are recorded. */
    private final class Recorder implements HttpRules {
        private final String prefix;

        Recorder(String prefix) {
            this.prefix = prefix;
        }

        private Recorder add(Method method, String path) {
            routes.add(method.text() + " " + join(prefix, path));
            return this;
        }

        @Override
        public HttpRules register(HttpService... services) {
            for (HttpService s : services) {
                s.routing(this);
            }
            return this;
        }

        @Override
        public HttpRules register(String pathPattern, HttpService... services) {
            for (HttpService s : services) {
                s.routing(new Recorder(join(prefix, pathPattern)));
            }
            return this;
        }

        @Override
        public HttpRules route(HttpRoute route) {
            // a route built by hand hides its method and path: record it through the methods below
            throw new UnsupportedOperationException("RouteTable cannot read a prebuilt HttpRoute; register it with get/post/…");
        }

        @Override
        public HttpRules route(Method method, String pathPattern, Handler handler) {
            return add(method, pathPattern);
        }

        @Override
        public HttpRules get(String pathPattern, Handler... handlers) {
            return add(Method.GET, pathPattern);
        }

        @Override
        public HttpRules get(Handler... handlers) {
            return add(Method.GET, null);
        }

        @Override
        public HttpRules post(String pathPattern, Handler... handlers) {
            return add(Method.POST, pathPattern);
        }

        @Override
        public HttpRules post(Handler... handlers) {
            return add(Method.POST, null);
        }

        @Override
        public HttpRules put(String pathPattern, Handler... handlers) {
            return add(Method.PUT, pathPattern);
        }

        @Override
        public HttpRules put(Handler... handlers) {
            return add(Method.PUT, null);
        }

        @Override
        public HttpRules patch(String pathPattern, Handler... handlers) {
            return add(Method.PATCH, pathPattern);
        }

        @Override
        public HttpRules patch(Handler... handlers) {
            return add(Method.PATCH, null);
        }

        @Override
        public HttpRules delete(String pathPattern, Handler... handlers) {
            return add(Method.DELETE, pathPattern);
        }

        @Override
        public HttpRules delete(Handler... handlers) {
            return add(Method.DELETE, null);
        }

        @Override
        public HttpRules head(String pathPattern, Handler... handlers) {
            return add(Method.HEAD, pathPattern);
        }

        @Override
        public HttpRules head(Handler... handlers) {
            return add(Method.HEAD, null);
        }

        @Override
        public HttpRules options(String pathPattern, Handler... handlers) {
            return add(Method.OPTIONS, pathPattern);
        }

        @Override
        public HttpRules options(Handler... handlers) {
            return add(Method.OPTIONS, null);
        }

        @Override
        public HttpRules any(String pathPattern, Handler... handlers) {
            return add(Method.create("ANY"), pathPattern);
        }

        @Override
        public HttpRules any(Handler... handlers) {
            return add(Method.create("ANY"), null);
        }
    }
}
