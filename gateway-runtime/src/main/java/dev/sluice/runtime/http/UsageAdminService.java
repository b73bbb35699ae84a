package dev.sluice.runtime.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.settings.ModelPrices;
import dev.sluice.runtime.store.UsageTotals;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code GET /api/usage?from=&to=&groupBy=} (SPEC DM-3): usage totals over a time range, overall
 * and per key, provider, connection, model or UTC day; tokens become a cost through the model catalog's
 * prices (issue 34: the descriptors', the config file's, the {@code modelPrices} setting's and the
 * operators' {@code PUT /api/models}). The totals are those of the {@code usage} table plus the minutes
 * still in memory, and a range selects the minutes requests arrived in.
 */
final class UsageAdminService implements HttpService {

    /** The range when {@code from} is not given: this long before {@code to}. */
    static final Duration DEFAULT_RANGE = Duration.ofDays(30);

    private final Json json;
    private final Authenticator auth;
    private final UsageTotals usage;
    /** A model's price (the model catalog's, issue 34), or null when it is unpriced. */
    private final java.util.function.BiFunction<String, String, ModelPrices.Price> prices;
    private final InstantSource clock;

    UsageAdminService(Json json, Authenticator auth, UsageTotals usage, java.util.function.BiFunction<String, String, ModelPrices.Price> prices,
            InstantSource clock) {
        this.json = json;
        this.auth = auth;
        this.usage = usage;
        this.prices = prices;
        this.clock = clock;
    }

    @Override
    public void routing(HttpRules rules) {
        rules.get("/", this::totals);
    }

    private void totals(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        // without "to": up to and including now
        long to = req.query().first("to").map(v -> QueryTimes.parse(v, "to", true)).orElse(clock.millis() + 1);
        long from = req.query().first("from").map(v -> QueryTimes.parse(v, "from", false)).orElse(to - DEFAULT_RANGE.toMillis());
        if (from > to) {
            throw ApiException.badRequest("from", "'from' must not be after 'to'.");
        }
        String groupName = req.query().first("groupBy").orElse(null);
        UsageTotals.GroupBy groupBy = groupName == null ? UsageTotals.GroupBy.PROVIDER : groupBy(groupName);
        List<UsageTotals.Sums> sums = usage.totals(from, to, groupBy);
        java.util.function.BiFunction<String, String, ModelPrices.Price> p = prices;

        Totals overall = new Totals();
        Map<String, Totals> groups = new LinkedHashMap<>();
        for (UsageTotals.Sums s : sums) {
            overall.add(s, p);
            groups.computeIfAbsent(s.group() == null ? "" : s.group(), k -> new Totals()).add(s, p);
        }
        ObjectNode root = json.object();
        root.put("from", Instant.ofEpochMilli(from).toString());
        root.put("to", Instant.ofEpochMilli(to).toString());
        if (groupName == null) {
            root.putNull("groupBy");
        } else {
            root.put("groupBy", groupBy.name().toLowerCase(Locale.ROOT));
        }
        root.set("totals", overall.write(json.object()));
        ArrayNode list = root.putArray("groups");
        if (groupName != null) {
            groups.forEach((g, t) -> {
                ObjectNode o = list.addObject();
                if (g.isEmpty()) {
                    o.putNull("group");
                } else {
                    o.put("group", g);
                }
                t.write(o);
            });
        }
        json.send(res, 200, root);
    }

    private static UsageTotals.GroupBy groupBy(String v) {
        try {
            return UsageTotals.GroupBy.valueOf(v.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest("groupBy", "'groupBy' must be one of key, provider, connection, model, day, hour, minute.");
        }
    }

    /** Sums of one group, priced model by model. */
    private static final class Totals {
        long requests;
        long errors;
        long prompt;
        long completion;
        long cached;
        long reasoning;
        long latencyMs;
        long attempts;
        double cost;
        long unpricedTokens;

        void add(UsageTotals.Sums s, java.util.function.BiFunction<String, String, ModelPrices.Price> prices) {
            requests += s.requests();
            errors += s.errors();
            prompt += s.promptTokens();
            completion += s.completionTokens();
            cached += s.cachedTokens();
            reasoning += s.reasoningTokens();
            latencyMs += s.latencyMs();
            attempts += s.attempts();
            ModelPrices.Price price = s.provider() == null || s.model() == null ? null : prices.apply(s.provider(), s.model());
            if (price != null) {
                cost += price.cost(s.promptTokens(), s.cachedTokens(), s.completionTokens());
            } else {
                unpricedTokens += s.promptTokens() + s.completionTokens();
            }
        }

        ObjectNode write(ObjectNode o) {
            o.put("requests", requests).put("errors", errors).put("promptTokens", prompt).put("completionTokens", completion)
                    .put("cachedTokens", cached).put("reasoningTokens", reasoning).put("totalTokens", prompt + completion)
                    .put("attempts", attempts).put("averageLatencyMs", requests == 0 ? 0 : latencyMs / requests)
                    // micro-dollar rounding: a float sum prints as 0.30000000000000004 otherwise
                    .put("costUsd", Math.round(cost * 1_000_000d) / 1_000_000d).put("unpricedTokens", unpricedTokens);
            return o;
        }
    }
}
