package dev.sluice.runtime.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.api.combo.ComboTargetView;
import dev.sluice.runtime.combo.routing.ComboExplanation;
import dev.sluice.runtime.routing.ConnectionSelector;

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
        ArrayNode order = root.putArray("order");
        for (ComboTargetView t : e.order()) {
            ObjectNode o = order.addObject();
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

    private static void putNullable(ObjectNode o, String field, Number v) {
        if (v == null) {
            o.putNull(field);
        } else if (v instanceof Double d) {
            o.put(field, d);
        } else {
            o.put(field, v.longValue());
        }
    }
}
