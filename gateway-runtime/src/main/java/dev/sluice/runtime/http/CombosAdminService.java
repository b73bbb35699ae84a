package dev.sluice.runtime.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.combo.Combo;
import dev.sluice.runtime.combo.ComboStore;
import dev.sluice.runtime.combo.ComboTarget;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * {@code /api/combos}: combos (SPEC §3, AD-1, CO-1). {@code PUT} replaces strategy, options and
 * targets of an existing combo; the name comes from the path and cannot change.
 */
final class CombosAdminService implements HttpService {

    /** Combo names: no {@code /}, which would read as {@code provider/model}. */
    static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,63}");
    /** The most targets one combo may have. */
    static final int MAX_TARGETS = 100;

    private static final Set<String> BODY_FIELDS = Set.of("name", "strategy", "strategyOptions", "targets");
    /** Read-only fields of the rendered combo, ignored in a body so that a GET result can be PUT back. */
    private static final Set<String> READ_ONLY_FIELDS = Set.of("createdAt", "updatedAt");
    private static final List<String> TARGET_FIELDS = List.of("model", "connectionId", "weight", "priority", "costPer1kTokens");

    private final Json json;
    private final Authenticator auth;
    private final ComboStore combos;
    private final java.util.function.Function<String, java.util.Optional<dev.sluice.api.combo.ComboStrategy>> strategies;
    private final Supplier<Set<String>> strategyNames;
    private final Predicate<String> knownConnection;
    private final Consumer<String> forget;
    private final Explainer explain;
    private final java.util.function.BiFunction<String, dev.sluice.runtime.routing.Caller, java.util.Optional<Combo>> virtual;

    /** Explains a combo's choice for a request body (issue 34). */
    @FunctionalInterface
    interface Explainer {
        /**
         * @param combo the combo
         * @param caller the admin caller
         * @param body the request body as a client would send it
         * @return the explanation
         */
        dev.sluice.runtime.combo.routing.ComboExplanation explain(Combo combo, dev.sluice.runtime.routing.Caller caller, byte[] body);
    }

    /**
     * Creates the service.
     *
     * @param json JSON helpers
     * @param auth authentication (admin scope)
     * @param combos the store
     * @param strategies the strategy of a name or alias, when registered
     * @param strategyNames the registered strategy names (for error messages)
     * @param knownConnection whether a connection id exists, or null to accept any {@code connectionId}
     * @param forget drops routing state of a combo deleted or replaced
     * @param explain what a combo would do with a request now (issue 34)
     * @param virtual the virtual {@code auto} combo a name denotes for a caller, when no combo is stored under it
     */
    CombosAdminService(Json json, Authenticator auth, ComboStore combos,
            java.util.function.Function<String, java.util.Optional<dev.sluice.api.combo.ComboStrategy>> strategies,
            Supplier<Set<String>> strategyNames, Predicate<String> knownConnection, Consumer<String> forget,
            Explainer explain, java.util.function.BiFunction<String, dev.sluice.runtime.routing.Caller, java.util.Optional<Combo>> virtual) {
        this.virtual = virtual;
        this.forget = forget;
        this.explain = explain;
        this.json = json;
        this.auth = auth;
        this.combos = combos;
        this.strategies = strategies;
        this.strategyNames = strategyNames;
        this.knownConnection = knownConnection;
    }

    @Override
    public void routing(HttpRules rules) {
        rules.get("/", this::list).post("/", this::create)
                .get("/{name}", this::get).put("/{name}", this::replace).delete("/{name}", this::delete)
                .post("/auto/{preset}/explain", this::explainAuto)
                .post("/{name}/explain", this::explain);
    }

    /** Issue 34: {@code auto/fast}, {@code auto/cheap}, {@code auto/smart} explained like a stored combo (their names hold a '/'). */
    private void explainAuto(ServerRequest req, ServerResponse res) {
        explain(req, res, "auto/" + req.path().pathParameters().get("preset"));
    }

    /**
     * Issue 34: the order the combo's strategy would try its targets in for this request now, with
     * the figures it used and what is held back; calls no upstream and moves no state. The body is
     * the request as a client would send it; its {@code model}, when present, must name the combo.
     */
    private void explain(ServerRequest req, ServerResponse res) {
        explain(req, res, req.path().pathParameters().get("name"));
    }

    private void explain(ServerRequest req, ServerResponse res, String name) {
        dev.sluice.runtime.routing.Caller caller = auth.admin(req);
        // a stored combo wins; else a virtual auto combo over every model the admin key may use
        Combo combo = combos.find(name).or(() -> virtual.apply(name, caller)).orElseThrow(() -> notFound(name));
        ObjectNode body = json.objectBody(req);
        JsonNode model = body.get("model");
        if (model != null && !model.isNull() && !(model.isTextual() && model.asText().equals(name))) {
            throw ApiException.badRequest("model", "'model' must name the combo being explained ('" + name + "') or be left out.");
        }
        byte[] raw;
        try {
            raw = json.mapper().writeValueAsBytes(body);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new java.io.UncheckedIOException(e);
        }
        json.send(res, 200, ComboExplainJson.render(json, explain.explain(combo, caller, raw)));
    }

    private void list(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        ObjectNode root = json.object();
        ArrayNode data = root.putArray("data");
        combos.list().forEach(c -> data.add(render(c)));
        // issue 33: the names a combo's strategy may take, built-in and contributed, for the dashboard's form
        ArrayNode strategies = root.putArray("strategies");
        new TreeSet<>(strategyNames.get()).forEach(strategies::add);
        json.send(res, 200, root);
    }

    private void get(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        String name = req.path().pathParameters().get("name");
        json.send(res, 200, render(combos.find(name).orElseThrow(() -> notFound(name))));
    }

    private void create(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        ObjectNode body = json.objectBody(req);
        JsonNode nameNode = body.get("name");
        if (nameNode == null || nameNode.isNull()) {
            throw ApiException.badRequest("name", "'name' is required.");
        }
        String name = validName(nameNode);
        Combo combo = parse(name, body);
        Combo stored = combos.create(combo).orElseThrow(() -> alreadyExists(name));
        json.send(res, 201, render(stored));
    }

    private void replace(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        String name = req.path().pathParameters().get("name");
        if (combos.find(name).isEmpty()) {
            throw notFound(name);
        }
        ObjectNode body = json.objectBody(req);
        JsonNode nameNode = body.get("name");
        if (nameNode != null && !nameNode.isNull() && !(nameNode.isTextual() && nameNode.asText().equals(name))) {
            throw ApiException.badRequest("name", "'name' cannot change: the body names a different combo than the path ('" + name
                    + "'); create a new combo and delete this one to rename it.");
        }
        Combo stored = combos.update(parse(name, body)).orElseThrow(() -> notFound(name));
        forget.accept(name);
        json.send(res, 200, render(stored));
    }

    private void delete(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        String name = req.path().pathParameters().get("name");
        if (!combos.delete(name)) {
            throw notFound(name);
        }
        forget.accept(name);
        json.send(res, 200, json.object().put("name", name).put("deleted", true));
    }

    private static ApiException notFound(String name) {
        return ApiException.notFound("not_found", "Combo '" + name + "' does not exist.");
    }

    private static ApiException alreadyExists(String name) {
        return ApiException.badRequest("name", "A combo named '" + name + "' already exists.");
    }

    private static String validName(JsonNode n) {
        if (!n.isTextual() || !NAME.matcher(n.asText()).matches()) {
            throw ApiException.badRequest("name", "'name' must be a string of 1 to 64 letters, digits, '.', '_', ':' or '-',"
                    + " starting with a letter or digit (no '/').");
        }
        return n.asText();
    }

    /** Validates everything but the name (checked by the caller) and builds the combo. */
    private Combo parse(String name, ObjectNode body) {
        for (Iterator<String> it = body.fieldNames(); it.hasNext();) {
            String field = it.next();
            if (!BODY_FIELDS.contains(field) && !READ_ONLY_FIELDS.contains(field)) {
                throw ApiException.badRequest(field, "Unknown field '" + field + "' (known: name, strategy, strategyOptions, targets).");
            }
        }
        String strategy = strategy(body.get("strategy"));
        Map<String, Object> options = options(body.get("strategyOptions"));
        List<ComboTarget> targets = targets(body.get("targets"));
        try {
            // issue 34: a strategy's own options (auto's weights, …) are refused here, not ignored later
            dev.sluice.api.combo.ComboStrategy s = strategies.apply(strategy).orElseThrow();
            s.checkOptions(options);
            if (s instanceof dev.sluice.runtime.combo.strategy.TargetBoundOptions bound) {
                // pipeline's steps, fusion's panel and judge name targets by position
                bound.checkOptions(options, targets.size());
            }
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(optionParam(e.getMessage()), e.getMessage() + ".");
        }
        return new Combo(name, strategy, options, targets, 0, 0);
    }

    /** The option a strategy's message names first ({@code strategyOptions.steps[1].instruction}), else {@code strategyOptions}. */
    static String optionParam(String message) {
        if (message != null && message.startsWith("strategyOptions.")) {
            int end = message.indexOf(' ');
            return end < 0 ? message : message.substring(0, end);
        }
        return "strategyOptions";
    }

    private String strategy(JsonNode n) {
        if (n == null || n.isNull()) {
            throw ApiException.badRequest("strategy", "'strategy' is required (known: " + knownStrategies() + ").");
        }
        if (!n.isTextual() || strategies.apply(n.asText()).isEmpty()) {
            throw ApiException.badRequest("strategy", "'strategy' must name a known strategy: " + knownStrategies() + ".");
        }
        return n.asText();
    }

    private String knownStrategies() {
        return String.join(", ", new TreeSet<>(strategyNames.get()));
    }

    /** Options are plain JSON values; top-level nulls are dropped (an absent option means its default). */
    private Map<String, Object> options(JsonNode n) {
        if (n == null || n.isNull()) {
            return Map.of();
        }
        if (!n.isObject()) {
            throw ApiException.badRequest("strategyOptions", "'strategyOptions' must be an object.");
        }
        // the router's own options: whole numbers in range
        for (String key : List.of("maxAttempts", "budgetMs")) {
            JsonNode v = n.get(key);
            long max = key.equals("maxAttempts") ? 100 : 3_600_000;
            if (v != null && !v.isNull() && (!v.isIntegralNumber() || !v.canConvertToInt() || v.asLong() < 1 || v.asLong() > max)) {
                throw ApiException.badRequest("strategyOptions." + key, "'strategyOptions." + key + "' must be a whole number from 1 to "
                        + max + ".");
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        n.properties().forEach(e -> {
            if (!e.getValue().isNull()) {
                out.put(e.getKey(), json.mapper().convertValue(e.getValue(), Object.class));
            }
        });
        return out;
    }

    private List<ComboTarget> targets(JsonNode n) {
        if (n == null || n.isNull()) {
            throw ApiException.badRequest("targets", "'targets' is required: a non-empty array of {model, connectionId?, weight?,"
                    + " priority?, costPer1kTokens?}.");
        }
        if (!n.isArray() || n.isEmpty() || n.size() > MAX_TARGETS) {
            throw ApiException.badRequest("targets", "'targets' must be an array of 1 to " + MAX_TARGETS + " targets.");
        }
        List<ComboTarget> out = new ArrayList<>(n.size());
        for (int i = 0; i < n.size(); i++) {
            out.add(target(n.get(i), "targets[" + i + "]"));
        }
        return out;
    }

    private ComboTarget target(JsonNode t, String at) {
        if (!t.isObject()) {
            throw ApiException.badRequest(at, "'" + at + "' must be an object {model, connectionId?, weight?, priority?, costPer1kTokens?}.");
        }
        for (Iterator<String> it = t.fieldNames(); it.hasNext();) {
            String field = it.next();
            if (!TARGET_FIELDS.contains(field)) {
                throw ApiException.badRequest(at + "." + field, "Unknown field '" + at + "." + field + "' (known: "
                        + String.join(", ", TARGET_FIELDS) + ").");
            }
        }
        JsonNode model = t.get("model");
        if (model == null || !model.isTextual() || model.asText().isBlank()) {
            throw ApiException.badRequest(at + ".model", "'" + at + ".model' is required: a non-empty string (provider/model).");
        }
        String connectionId = null;
        JsonNode conn = t.get("connectionId");
        if (conn != null && !conn.isNull()) {
            if (!conn.isTextual() || conn.asText().isBlank()) {
                throw ApiException.badRequest(at + ".connectionId", "'" + at + ".connectionId' must be a non-empty string.");
            }
            connectionId = conn.asText();
            if (knownConnection != null && !knownConnection.test(connectionId)) {
                throw ApiException.badRequest(at + ".connectionId", "'" + at + ".connectionId' names connection '" + connectionId
                        + "', which does not exist.");
            }
        }
        Integer weight = integer(t, at, "weight", 0);
        Integer priority = integer(t, at, "priority", 1);
        Double cost = null;
        JsonNode c = t.get("costPer1kTokens");
        if (c != null && !c.isNull()) {
            if (!c.isNumber() || !Double.isFinite(c.asDouble()) || c.asDouble() < 0) {
                throw ApiException.badRequest(at + ".costPer1kTokens", "'" + at + ".costPer1kTokens' must be a number >= 0.");
            }
            cost = c.asDouble();
        }
        return new ComboTarget(model.asText().strip(), connectionId, weight, priority, cost);
    }

    private static Integer integer(JsonNode t, String at, String field, int min) {
        JsonNode n = t.get(field);
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isIntegralNumber() || !n.canConvertToInt() || n.asInt() < min) {
            throw ApiException.badRequest(at + "." + field, "'" + at + "." + field + "' must be an integer >= " + min + ".");
        }
        return n.asInt();
    }

    private ObjectNode render(Combo c) {
        ObjectNode o = json.object();
        o.put("name", c.name());
        o.put("strategy", c.strategy());
        o.set("strategyOptions", json.mapper().valueToTree(new TreeMap<>(c.strategyOptions())));
        ArrayNode targets = o.putArray("targets");
        for (ComboTarget t : c.targets()) {
            ObjectNode to = targets.addObject();
            to.put("model", t.model());
            to.put("connectionId", t.connectionId());
            to.put("weight", t.weight());
            to.put("priority", t.priority());
            to.put("costPer1kTokens", t.costPer1kTokens());
        }
        o.put("createdAt", c.createdAt());
        o.put("updatedAt", c.updatedAt());
        return o;
    }
}
