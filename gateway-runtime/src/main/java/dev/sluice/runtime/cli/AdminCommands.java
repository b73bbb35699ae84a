package dev.sluice.runtime.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The admin commands: each is one documented admin route (docs/api.md), its answer rendered for a
 * terminal. Only fields that are never secret are printed: a connection's masked {@code apiKey} or
 * {@code oauth} and its {@code proxyUrl} are not even read.
 */
final class AdminCommands {

    private final AdminClient admin;
    private final PrintStream out;
    private final PrintStream err;

    private final LoginCommands logins;
    private final Map<String, String> env;

    /** With stdin and the environment, for {@code login} and {@code import} (issue 36). */
    AdminCommands(AdminClient admin, java.io.BufferedReader in, Map<String, String> env, PrintStream out, PrintStream err,
            LoginCommands.Pause pause) {
        this.admin = admin;
        this.out = out;
        this.err = err;
        this.logins = new LoginCommands(admin, in, out, pause);
        this.env = env;
    }

    /**
     * Runs one command.
     *
     * @param command the command
     * @return the exit status
     */
    int run(Command.Admin command) {
        try {
            return switch (command) {
                case Command.ProvidersList p -> providers();
                case Command.KeysCreate k -> createKey(k.name());
                case Command.CooldownsList c -> cooldowns();
                case Command.CooldownsClear c -> clearCooldowns(c.connectionIds());
                case Command.BreakersReset b -> resetBreakers(b);
                case Command.ConnectionsReactivate r -> reactivate(r.connectionIds());
                case Command.Login l -> logins.login(l);
                case Command.Import i -> logins.importCredentials(i, env);
            };
        } catch (AdminClient.Failure e) {
            err.println("sluice: " + e.getMessage());
            return Cli.FAILED;
        }
    }

    private int providers() throws AdminClient.Failure {
        JsonNode data = admin.get("/api/providers").path("data");
        if (data.isEmpty()) {
            out.println("No provider connections.");
            return Cli.OK;
        }
        Table table = new Table("ID", "PROVIDER", "NAME", "STATUS", "PRIORITY");
        for (JsonNode c : data) {
            String status = c.path("enabled").asBoolean(true) ? text(c, "testStatus") : "disabled";
            table.row(text(c, "id"), text(c, "provider"), text(c, "name"), status, text(c, "priority"));
        }
        out.print(table.render());
        return Cli.OK;
    }

    private int createKey(String name) throws AdminClient.Failure {
        ObjectNode body = AdminClient.json().createObjectNode().put("name", name);
        JsonNode key = admin.post("/api/keys", body);
        out.println("Created client key '" + text(key, "name") + "'.");
        out.println("id:  " + text(key, "id"));
        out.println("key: " + text(key, "key"));
        out.println("The key is shown only this once (Sluice keeps only its hash): store it now.");
        return Cli.OK;
    }

    private int cooldowns() throws AdminClient.Failure {
        JsonNode data = admin.get("/api/resilience/cooldowns").path("data");
        if (data.isEmpty()) {
            out.println("No provider connections.");
            return Cli.OK;
        }
        Table table = new Table("CONNECTION", "PROVIDER", "NAME", "STATUS", "COOLDOWN LEFT", "BACKOFF", "LAST ERROR", "MODEL LOCKOUTS");
        for (JsonNode c : data) {
            long remaining = c.path("remainingMs").asLong(0);
            List<String> lockouts = new ArrayList<>();
            for (JsonNode l : c.path("modelLockouts")) {
                lockouts.add(text(l, "model") + " (" + text(l, "reason") + ", " + duration(l.path("remainingMs").asLong(0)) + ")");
            }
            table.row(text(c, "connectionId"), text(c, "provider"), text(c, "name"), text(c, "testStatus"),
                    remaining > 0 ? duration(remaining) : null, text(c, "backoffLevel"), text(c, "lastErrorType"),
                    String.join(", ", lockouts));
        }
        out.print(table.render());
        return Cli.OK;
    }

    private int clearCooldowns(List<String> ids) throws AdminClient.Failure {
        ObjectNode body = AdminClient.json().createObjectNode();
        if (ids.isEmpty()) {
            body.put("all", true);
        } else {
            ArrayNode list = body.putArray("connectionIds");
            ids.forEach(list::add);
        }
        JsonNode answer = admin.post("/api/resilience/cooldowns", body);
        List<String> cleared = strings(answer.path("cleared"));
        List<String> unchanged = strings(answer.path("unchanged"));
        List<String> terminal = strings(answer.path("skippedTerminal"));
        List<String> notFound = strings(answer.path("notFound"));
        int lockouts = answer.path("lockoutsCleared").asInt(0);
        out.println("Cooldowns cleared: " + listOrNone(cleared));
        if (!unchanged.isEmpty()) {
            out.println("Not cooling (unchanged): " + String.join(", ", unchanged));
        }
        if (!terminal.isEmpty()) {
            out.println("Left alone, terminal state (banned, expired, credits exhausted): " + String.join(", ", terminal));
        }
        out.println("Model lockouts cleared: " + lockouts);
        if (!notFound.isEmpty()) {
            // the route answers 200 either way; a mistyped id must not look like success
            err.println("sluice: no connection with id " + String.join(", ", notFound));
            return Cli.FAILED;
        }
        return Cli.OK;
    }

    /** Issue 27: the terminal connections back to active; the cooldown route with "reactivate" does it. */
    private int reactivate(List<String> ids) throws AdminClient.Failure {
        ObjectNode body = AdminClient.json().createObjectNode().put("reactivate", true);
        ArrayNode list = body.putArray("connectionIds");
        ids.forEach(list::add);
        JsonNode answer = admin.post("/api/resilience/cooldowns", body);
        List<String> reactivated = strings(answer.path("reactivated"));
        List<String> notTerminal = new ArrayList<>(strings(answer.path("cleared")));
        notTerminal.addAll(strings(answer.path("unchanged")));
        List<String> notFound = strings(answer.path("notFound"));
        out.println("Reactivated: " + listOrNone(reactivated));
        if (!notTerminal.isEmpty()) {
            out.println("Not terminal (cooldowns cleared, nothing to reactivate): " + String.join(", ", notTerminal));
        }
        if (!notFound.isEmpty()) {
            err.println("sluice: no connection with id " + String.join(", ", notFound));
            return Cli.FAILED;
        }
        return Cli.OK;
    }

    private int resetBreakers(Command.BreakersReset reset) throws AdminClient.Failure {
        ObjectNode body = AdminClient.json().createObjectNode();
        reset.provider().ifPresent(p -> body.put("provider", p));
        int n = admin.post("/api/resilience/reset", body).path("reset").asInt(0);
        String breakers = n == 1 ? "1 circuit breaker" : n + " circuit breakers";
        out.println(reset.provider().map(p -> "Reset " + breakers + " of provider " + p + ".")
                .orElse("Reset " + breakers + " of every provider; the provider cooldown window gate was cleared too."));
        return Cli.OK;
    }

    /** A field as display text; null when absent or JSON null. */
    private static String text(JsonNode node, String field) {
        JsonNode v = node.path(field);
        return v.isMissingNode() || v.isNull() ? null : v.asText();
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(v -> out.add(v.asText()));
        return out;
    }

    private static String listOrNone(List<String> values) {
        return values.isEmpty() ? "none" : String.join(", ", values);
    }

    /** Milliseconds left as {@code 45s}, {@code 3m 20s}, {@code 2h 5m}; rounded up to whole seconds. */
    static String duration(long ms) {
        long s = (Math.max(0, ms) + 999) / 1000;
        if (s < 60) {
            return s + "s";
        }
        if (s < 3600) {
            return s / 60 + "m " + s % 60 + "s";
        }
        return s / 3600 + "h " + s % 3600 / 60 + "m";
    }
}
