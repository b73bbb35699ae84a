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

    /** The order methods are listed in an {@code Allow} header. */
    private static final List<String> METHOD_ORDER = List.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS");

    private final Set<String> routes = new ConcurrentSkipListSet<>();
    /** Each route's method and the pattern its path matches (for 405 answers). */
    private final List<Matcher> matchers = new java.util.concurrent.CopyOnWriteArrayList<>();

    private record Matcher(String method, java.util.regex.Pattern path) {
    }

    /** @return the routes, sorted: {@code GET /api/providers/{id}}, … */
    public List<String> routes() {
        return List.copyOf(routes);
    }

    /** Registers a service under a prefix, and writes down its routes. */
    void register(HttpRouting.Builder routing, String prefix, HttpService service) {
        routing.register(prefix, service);
        service.routing(new Recorder(prefix));
    }

    /**
     * The methods registered for a path, for a 405's {@code Allow} header: derived from the routes
     * the services registered, so the answer cannot drift from the routing.
     *
     * @param path a request path
     * @return the methods, {@code "GET, PUT, DELETE"}, or null when no route has this path
     */
    public String allowedMethods(String path) {
        java.util.TreeSet<String> methods = new java.util.TreeSet<>(java.util.Comparator.comparingInt(
                (String m) -> METHOD_ORDER.indexOf(m) < 0 ? METHOD_ORDER.size() : METHOD_ORDER.indexOf(m)).thenComparing(m -> m));
        for (Matcher m : matchers) {
            if (!m.method().equals("ANY") && m.path().matcher(path).matches()) {
                methods.add(m.method());
            }
        }
        return methods.isEmpty() ? null : String.join(", ", methods);
    }

    /**
     * A Helidon path pattern as a regular expression: {@code {name}} one segment, {@code {+name}}
     * the rest of the path, a trailing slash optional.
     */
    static java.util.regex.Pattern pathRegex(String pattern) {
        StringBuilder re = new StringBuilder();
        java.util.regex.Matcher param = java.util.regex.Pattern.compile("\\{(\\+?)[^}]*}").matcher(pattern);
        int at = 0;
        while (param.find()) {
            re.append(java.util.regex.Pattern.quote(pattern.substring(at, param.start())));
            re.append(param.group(1).isEmpty() ? "[^/]+" : ".+");
            at = param.end();
        }
        String rest = pattern.substring(at);
        if (rest.endsWith("/") && rest.length() > 1) {
            rest = rest.substring(0, rest.length() - 1);
        }
        if (!rest.isEmpty() && !rest.equals("/")) {
            re.append(java.util.regex.Pattern.quote(rest));
        }
        return java.util.regex.Pattern.compile(re + "/?");
    }

    /** {@code /v1} + {@code /models/{+id}} → {@code /v1/models/{id}}; {@code /api/keys} + {@code /} → {@code /api/keys}. */
    static String join(String prefix, String path) {
        String p = prefix.endsWith("/") ? prefix.substring(0, prefix.length() - 1) : prefix;
        String joined = path == null || path.isEmpty() || path.equals("/") ? p : p + (path.startsWith("/") ? path : "/" + path);
        return (joined.isEmpty() ? "/" : joined).replace("{+", "{");
    }

    /** {@link #join} keeping {@code {+name}} (the rest of the path) for matching. */
    private static String rawJoin(String prefix, String path) {
        String p = prefix.endsWith("/") ? prefix.substring(0, prefix.length() - 1) : prefix;
        String joined = path == null || path.isEmpty() || path.equals("/") ? p : p + (path.startsWith("/") ? path : "/" + path);
        return joined.isEmpty() ? "/" : joined;
    }

    /** Writes routes down; routes nothing. Only the rule methods Sluice's services use are recorded. */
    private final class Recorder implements HttpRules {
        private final String prefix;

        Recorder(String prefix) {
            this.prefix = prefix;
        }

        private Recorder add(Method method, String path) {
            routes.add(method.text() + " " + join(prefix, path));
            matchers.add(new Matcher(method.text(), pathRegex(rawJoin(prefix, path))));
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
                s.routing(new Recorder(rawJoin(prefix, pathPattern)));
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
