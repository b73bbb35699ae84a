package dev.sluice.runtime.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.api.combo.ComboTargetView;
import dev.sluice.runtime.combo.routing.ComboExplanation;
import dev.sluice.runtime.routing.ConnectionSelector;
import java.util.Map;

/** The answer of {@code POST /api/combos/{name}/explain} (issue 34). */
final class ComboExplainJson {

    private ComboExplainJson() {
    }

    static ObjectNode render(Json json, ComboExplanation e) {
        ObjectNode root = json.object();
        root.put("combo", e.combo().name());
        root.put("strategy", e.combo().strategy());
        root.put("strategyFound", e.strategyFound());
        root.put("at", e.at());
        ObjectNode request = root.putObject("request");
        putNullable(request, "estimatedInputTokens", e.estimatedInputTokens());
        putNullable(request, "maxTokens", e.maxOutputTokens());
        ArrayNode order = root.putArray("order");
        for (ComboTargetView t : e.order()) {
            target(json, order.addObject(), t, e);
        }
        ArrayNode notTried = root.putArray("notTried");
        for (ComboTargetView t : e.notTried()) {
            target(json, notTried.addObject(), t, e).put("reason", e.notTriedReasons().get(t.index()));
        }
        ArrayNode held = root.putArray("heldBack");
        for (ConnectionSelector.Excluded x : e.heldBack()) {
            ObjectNode o = held.addObject();
            o.put("model", x.candidate().provider() + "/" + x.candidate().model());
            o.put("connectionId", x.candidate().connection().id());
            o.put("reason", x.exclusion().reason().wireName());
            o.put("remainingMs", x.exclusion().reason().timer() ? x.exclusion().remainingMs() : 0);
            if (x.exclusion().cause() != null) {
                o.put("cause", x.exclusion().cause().wireName());
            }
        }
        return root;
    }

    private static ObjectNode target(Json json, ObjectNode o, ComboTargetView t, ComboExplanation e) {
        o.put("index", t.index());
        o.put("model", t.model());
        o.put("startsOn", e.startsOn().get(t.index()));
        if (t.connectionId() != null) {
            o.put("pinnedConnectionId", t.connectionId());
        }
        ObjectNode f = o.putObject("figures");
        f.put("priority", t.priority());
        f.put("weight", t.weight());
        putNullable(f, "costPer1kTokens", t.costPer1kTokens());
        f.put("inFlight", t.inFlight());
        f.put("uses", t.uses());
        putNullable(f, "lastUsedAt", t.lastUsedAt());
        putNullable(f, "lastSuccessAt", t.lastSuccessAt());
        putNullable(f, "quotaRemaining", t.quotaRemaining());
        putNullable(f, "quotaResetAt", t.quotaResetAt());
        putNullable(f, "quotaWindowResetAt", t.quotaWindowResetAt());
        putNullable(f, "contextWindow", t.facts().contextWindow());
        putNullable(f, "maxOutputTokens", t.facts().maxOutputTokens());
        putNullable(f, "inputPerMillion", t.facts().inputPerMillion());
        putNullable(f, "outputPerMillion", t.facts().outputPerMillion());
        putNullable(f, "tier", t.facts().tier());
        putNullable(f, "latencyP50Ms", t.latencyP50Ms());
        putNullable(f, "failureRate", t.failureRate());
        f.put("heldConnections", t.heldConnections());
        Map<String, Object> strategy = e.strategyFigures().get(t.index());
        if (strategy != null) {
            o.set("strategy", json.mapper().valueToTree(strategy));
        }
        return o;
    }

    private static void putNullable(ObjectNode o, String field, Number v) {
        if (v == null) {
            o.putNull(field);
        } else if (v instanceof Double d) {
            o.put(field, d);
        } else if (v instanceof Integer i) {
            o.put(field, i);
        } else {
            o.put(field, v.longValue());
        }
    }
}
