package dev.sluice.runtime.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * {@code bin/sluice login} and {@code bin/sluice import} (issue 36): the admin login API driven from a
 * terminal, and connections made from the files official CLIs keep their tokens in.
 */
final class LoginCommands {

    /** How often a pending flow is read while the operator approves it in the browser. */
    static final Duration POLL_EVERY = Duration.ofSeconds(2);

    /** Where each official CLI stores its credentials, relative to the home folder. */
    static final Map<String, String> DEFAULT_FILES = Map.of(
            "claude", ".claude/.credentials.json",
            "codex", ".codex/auth.json",
            "gemini", ".gemini/oauth_creds.json",
            "qwen", ".qwen/oauth_creds.json");

    /** Waits between polls; tests pass one that returns at once. */
    interface Pause {
        void pause(Duration d) throws InterruptedException;
    }

    private final AdminClient admin;
    private final BufferedReader in;
    private final PrintStream out;
    private final Pause pause;

    LoginCommands(AdminClient admin, BufferedReader in, PrintStream out, Pause pause) {
        this.admin = admin;
        this.in = in;
        this.out = out;
        this.pause = pause;
    }

    int login(Command.Login command) throws AdminClient.Failure {
        ObjectNode body = AdminClient.json().createObjectNode();
        command.name().ifPresent(n -> body.put("name", n));
        if (command.device()) {
            body.put("flow", "device");
        }
        JsonNode flow = admin.post("/api/oauth/" + URLEncoder.encode(command.provider(), StandardCharsets.UTF_8) + "/start", body);
        String flowId = flow.path("flowId").asText();
        JsonNode status;
        if (flow.hasNonNull("authorizeUrl")) {
            out.println("Open this URL, sign in and approve:");
            out.println("  " + flow.path("authorizeUrl").asText());
            out.println("Then paste the code the page shows, or the whole URL your browser was sent to, and press Enter:");
            String pasted = readLine();
            if (pasted == null || pasted.isBlank()) {
                throw new AdminClient.Failure("login: nothing was pasted; the login was not completed");
            }
            ObjectNode code = AdminClient.json().createObjectNode();
            String p = pasted.strip();
            if (p.startsWith("http://") || p.startsWith("https://")) {
                code.put("callbackUrl", p);
            } else {
                code.put("code", p);
            }
            status = admin.post("/api/oauth/flows/" + flowId + "/code", code);
        } else {
            out.println("Open " + flow.path("verificationUri").asText() + " and enter the code " + flow.path("userCode").asText());
            out.println("Waiting for approval…");
            status = admin.get("/api/oauth/flows/" + flowId);
            while ("pending".equals(status.path("status").asText())) {
                try {
                    pause.pause(POLL_EVERY);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AdminClient.Failure("interrupted");
                }
                status = admin.get("/api/oauth/flows/" + flowId);
            }
        }
        return report(status);
    }

    private int report(JsonNode status) throws AdminClient.Failure {
        if (!"connected".equals(status.path("status").asText())) {
            throw new AdminClient.Failure("login " + status.path("status").asText() + ": " + status.path("error").asText("no reason given"));
        }
        JsonNode c = admin.get("/api/providers/" + status.path("connectionId").asText());
        printConnection("Connected", c);
        return Cli.OK;
    }

    int importCredentials(Command.Import command, Map<String, String> env) throws AdminClient.Failure {
        String provider = command.provider();
        String relative = DEFAULT_FILES.get(provider);
        if (relative == null) {
            throw new AdminClient.Failure("import: no importer for provider '" + provider + "' (supported: claude, codex, gemini, qwen)");
        }
        Path file = command.file().map(Path::of).orElseGet(() -> Path.of(env.getOrDefault("HOME", "."), relative));
        JsonNode root;
        try {
            root = AdminClient.json().readTree(Files.readString(file));
        } catch (IOException e) {
            throw new AdminClient.Failure("import: cannot read " + file + ": " + (e.getMessage() == null ? e.getClass().getSimpleName()
                    : e.getMessage().lines().findFirst().orElse("")));
        }
        ObjectNode body = AdminClient.json().createObjectNode().put("provider", provider).put("authType", "oauth")
                .put("name", provider + " (imported)");
        ObjectNode oauth = body.putObject("oauth");
        if (provider.equals("claude")) {
            JsonNode t = root == null ? null : root.path("claudeAiOauth");
            if (t == null || !t.path("accessToken").isTextual()) {
                throw new AdminClient.Failure("import: " + file + " has no claudeAiOauth.accessToken (not a Claude Code credentials file)");
            }
            oauth.put("accessToken", t.path("accessToken").asText());
            copyText(t, "refreshToken", oauth, "refreshToken");
            if (t.path("expiresAt").canConvertToLong()) {
                oauth.put("expiresAt", t.path("expiresAt").asLong());
            }
        } else if (provider.equals("codex")) {
            CodexAuthFile.fill(root, file, body, oauth);
            JsonNode same = CodexAuthFile.sameAccount(admin.get("/api/providers"), body);
            if (same != null) {
                // the file names its account: importing it again renews that connection instead of adding a second
                printConnection("Updated", admin.patch("/api/providers/" + same.path("id").asText(), CodexAuthFile.update(same, body)));
                return Cli.OK;
            }
        } else if (provider.equals("gemini")) {
            gemini(root, file, body, oauth);
        } else {
            if (root == null || !root.path("access_token").isTextual()) {
                throw new AdminClient.Failure("import: " + file + " has no access_token (not a Qwen Code oauth_creds.json)");
            }
            oauth.put("accessToken", root.path("access_token").asText());
            copyText(root, "refresh_token", oauth, "refreshToken");
            if (root.path("expiry_date").canConvertToLong()) {
                oauth.put("expiresAt", root.path("expiry_date").asLong());
            }
            if (root.path("resource_url").isTextual()) {
                String u = root.path("resource_url").asText().strip();
                u = u.startsWith("http://") || u.startsWith("https://") ? u : "https://" + u;
                body.put("baseUrl", u.endsWith("/v1") ? u : u + "/v1");
            }
        }
        printConnection("Imported", admin.post("/api/providers", body));
        return Cli.OK;
    }

    /**
     * Gemini CLI's {@code oauth_creds.json} (google-auth-library's {@code Credentials}:
     * {@code access_token}, {@code refresh_token}, {@code expiry_date} in epoch ms, {@code id_token},
     * {@code scope}, {@code token_type}). No base URL: the plugin serves an oauth connection on the
     * API-key host from its Code Assist endpoint. The e-mail of the {@code id_token} becomes the
     * connection's identity, so a later login to the same account updates it.
     */
    private static void gemini(JsonNode root, Path file, ObjectNode body, ObjectNode oauth) throws AdminClient.Failure {
        if (root == null || !root.path("access_token").isTextual() || root.path("access_token").asText().isBlank()) {
            throw new AdminClient.Failure("import: " + file + " has no access_token (not a Gemini CLI oauth_creds.json)");
        }
        oauth.put("accessToken", root.path("access_token").asText());
        copyText(root, "refresh_token", oauth, "refreshToken");
        if (root.path("expiry_date").canConvertToLong()) {
            oauth.put("expiresAt", root.path("expiry_date").asLong());
        }
        String email = idTokenEmail(root.path("id_token").asText(null));
        if (email != null) {
            body.putObject("providerSpecificData").putObject(dev.sluice.runtime.oauth.AccountConnections.ACCOUNT_KEY)
                    .put("identity", email).put("email", email);
        }
    }

    /** The {@code email} claim of an ID token's payload (not verified: it only names the connection), or null. */
    static String idTokenEmail(String idToken) {
        String[] parts = idToken == null ? new String[0] : idToken.split("\\.");
        if (parts.length < 2) {
            return null;
        }
        try {
            JsonNode claims = AdminClient.json().readTree(java.util.Base64.getUrlDecoder().decode(parts[1]));
            return claims != null && claims.path("email").isTextual() ? claims.path("email").asText() : null;
        } catch (IOException | IllegalArgumentException e) {
            return null;
        }
    }

    private static void copyText(JsonNode from, String field, ObjectNode to, String as) {
        if (from.path(field).isTextual() && !from.path(field).asText().isBlank()) {
            to.put(as, from.path(field).asText());
        }
    }

    private void printConnection(String what, JsonNode c) {
        out.println(what + ": connection " + c.path("id").asText() + " (" + c.path("provider").asText() + ", '"
                + c.path("name").asText() + "', authType " + c.path("authType").asText() + ")");
    }

    private String readLine() throws AdminClient.Failure {
        try {
            return in.readLine();
        } catch (IOException e) {
            throw new AdminClient.Failure("login: reading stdin failed: " + e.getMessage());
        }
    }
}
