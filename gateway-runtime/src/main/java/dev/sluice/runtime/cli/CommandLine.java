package dev.sluice.runtime.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Parses {@code bin/sluice}'s arguments. Anything it does not recognise becomes
 * {@link Command.Invalid}, never {@link Command.Serve}: an operator who types
 * {@code bin/sluice stop} must not get a second server.
 */
public final class CommandLine {

    /** What {@code bin/sluice --help} prints. */
    public static final String USAGE = """
            Usage: bin/sluice [COMMAND]

            Commands:
              serve                      start the server in the foreground (the default: no command);
                                         stop it with Ctrl-C or SIGTERM
              doctor                     check Java, the configuration, the data folder, the database and
                                         the plugins; starts no server and changes nothing
              providers list             list the provider connections (never their secrets)
              keys create --name NAME    create a client key; its secret is printed once
              cooldowns list             list the connections' cooldowns and model lockouts
              cooldowns clear [ID...]    clear the cooldowns of every connection, or of the given ones
              breakers reset [PROVIDER]  reset the circuit breakers of every provider, or of one
              connections reactivate ID...
                                         bring terminal connections (banned, expired, credits exhausted)
                                         back to active, e.g. once their credit is refilled
              login PROVIDER [--name N] [--device]
                                         log in to a subscription account (claude, codex, gemini, qwen): prints the URL or
                                         the user code, reads a pasted code or redirect URL from stdin when
                                         the flow needs one, waits, prints the new connection
              import PROVIDER [--file F]
                                         create a connection from the credentials an official CLI stored
                                         (claude: ~/.claude/.credentials.json, codex: ~/.codex/auth.json,
                                         gemini: ~/.gemini/oauth_creds.json, qwen: ~/.qwen/oauth_creds.json)
              rotate-key                 re-encrypt the stored credentials under a new secret key (stop the
                                         server first); the new key comes from SLUICE_NEW_SECRET_KEY, or is
                                         generated into data/secret.key when the key is that file
              help, --help               print this help

            The server and doctor read conf/sluice.yaml (or the file named by SLUICE_CONFIG) and the
            SLUICE_* environment variables. providers, keys, cooldowns, breakers and connections talk to a running
            server's admin API:
              SLUICE_URL        the server, default http://127.0.0.1:20128
              SLUICE_ADMIN_KEY  the admin key (required)

            Exit status: 0 done, 1 failed (a failed check, an error answer, no server), 2 bad usage.
            See docs/operator-guide.md, "Command line".""";

    private CommandLine() {
    }

    /**
     * Parses the arguments.
     *
     * @param args the arguments after {@code bin/sluice}
     * @return the command; never null
     */
    public static Command parse(List<String> args) {
        if (args.isEmpty()) {
            return new Command.Serve();
        }
        if (args.contains("--help") || args.contains("-h") || args.equals(List.of("help"))) {
            return new Command.Help();
        }
        String command = args.getFirst();
        List<String> rest = args.subList(1, args.size());
        return switch (command) {
            case "serve" -> rest.isEmpty() ? new Command.Serve() : tooMany("serve", rest);
            case "doctor" -> rest.isEmpty() ? new Command.Doctor() : tooMany("doctor", rest);
            case "rotate-key" -> rest.isEmpty() ? new Command.RotateKey() : tooMany("rotate-key", rest);
            case "providers" -> providers(rest);
            case "keys" -> keys(rest);
            case "cooldowns" -> cooldowns(rest);
            case "breakers" -> breakers(rest);
            case "connections" -> connections(rest);
            case "login" -> login(rest);
            case "import" -> importFile(rest);
            default -> new Command.Invalid("unknown command: " + String.join(" ", args));
        };
    }

    private static Command providers(List<String> rest) {
        if (rest.isEmpty() || !rest.getFirst().equals("list")) {
            return subcommand("providers", "list", rest);
        }
        return rest.size() == 1 ? new Command.ProvidersList() : tooMany("providers list", rest.subList(1, rest.size()));
    }

    private static Command keys(List<String> rest) {
        if (rest.isEmpty() || !rest.getFirst().equals("create")) {
            return subcommand("keys", "create --name NAME", rest);
        }
        String name = null;
        List<String> options = rest.subList(1, rest.size());
        for (int i = 0; i < options.size(); i++) {
            String option = options.get(i);
            String value;
            if (option.equals("--name")) {
                if (i + 1 >= options.size()) {
                    return new Command.Invalid("keys create: --name needs a value");
                }
                value = options.get(++i);
            } else if (option.startsWith("--name=")) {
                value = option.substring("--name=".length());
            } else {
                return new Command.Invalid("keys create: unknown argument " + option);
            }
            if (name != null) {
                return new Command.Invalid("keys create: --name given twice");
            }
            name = value;
        }
        if (name == null || name.isBlank()) {
            return new Command.Invalid("keys create needs --name NAME");
        }
        return new Command.KeysCreate(name.strip());
    }

    private static Command cooldowns(List<String> rest) {
        if (!rest.isEmpty() && rest.getFirst().equals("list")) {
            return rest.size() == 1 ? new Command.CooldownsList() : tooMany("cooldowns list", rest.subList(1, rest.size()));
        }
        if (!rest.isEmpty() && rest.getFirst().equals("clear")) {
            List<String> ids = new ArrayList<>();
            for (String id : rest.subList(1, rest.size())) {
                if (id.startsWith("-") || id.isBlank()) {
                    return new Command.Invalid("cooldowns clear: unknown argument '" + id + "' (expected connection ids)");
                }
                ids.add(id);
            }
            return new Command.CooldownsClear(ids);
        }
        return subcommand("cooldowns", "list or clear", rest);
    }

    private static Command connections(List<String> rest) {
        if (rest.isEmpty() || !rest.getFirst().equals("reactivate")) {
            return subcommand("connections", "reactivate ID...", rest);
        }
        List<String> ids = new ArrayList<>();
        for (String id : rest.subList(1, rest.size())) {
            if (id.startsWith("-") || id.isBlank()) {
                return new Command.Invalid("connections reactivate: unknown argument '" + id + "' (expected connection ids)");
            }
            ids.add(id);
        }
        return ids.isEmpty() ? new Command.Invalid("connections reactivate needs at least one connection id")
                : new Command.ConnectionsReactivate(ids);
    }

    private static Command breakers(List<String> rest) {
        if (rest.isEmpty() || !rest.getFirst().equals("reset")) {
            return subcommand("breakers", "reset", rest);
        }
        return switch (rest.size()) {
            case 1 -> new Command.BreakersReset(Optional.empty());
            case 2 -> rest.get(1).startsWith("-") || rest.get(1).isBlank()
                    ? new Command.Invalid("breakers reset: unknown argument '" + rest.get(1) + "' (expected a provider id)")
                    : new Command.BreakersReset(Optional.of(rest.get(1)));
            default -> tooMany("breakers reset PROVIDER", rest.subList(2, rest.size()));
        };
    }

    private static Command login(List<String> rest) {
        if (rest.isEmpty() || rest.getFirst().startsWith("-")) {
            return new Command.Invalid("login needs a provider: login PROVIDER [--name N] [--device]");
        }
        String name = null;
        boolean device = false;
        for (int i = 1; i < rest.size(); i++) {
            String option = rest.get(i);
            if (option.equals("--device")) {
                device = true;
            } else if (option.equals("--name") && i + 1 < rest.size()) {
                name = rest.get(++i);
            } else if (option.startsWith("--name=")) {
                name = option.substring("--name=".length());
            } else {
                return new Command.Invalid("login: unknown argument " + option);
            }
        }
        if (name != null && name.isBlank()) {
            return new Command.Invalid("login: --name needs a non-empty value");
        }
        return new Command.Login(rest.getFirst(), Optional.ofNullable(name).map(String::strip), device);
    }

    private static Command importFile(List<String> rest) {
        if (rest.isEmpty() || rest.getFirst().startsWith("-")) {
            return new Command.Invalid("import needs a provider: import PROVIDER [--file F]");
        }
        String file = null;
        for (int i = 1; i < rest.size(); i++) {
            String option = rest.get(i);
            if (option.equals("--file") && i + 1 < rest.size()) {
                file = rest.get(++i);
            } else if (option.startsWith("--file=")) {
                file = option.substring("--file=".length());
            } else {
                return new Command.Invalid("import: unknown argument " + option);
            }
        }
        return new Command.Import(rest.getFirst(), Optional.ofNullable(file));
    }

    private static Command subcommand(String command, String expected, List<String> rest) {
        return new Command.Invalid(rest.isEmpty() ? command + " needs a subcommand: " + expected
                : "unknown command: " + command + " " + String.join(" ", rest) + " (expected " + command + " " + expected + ")");
    }

    private static Command tooMany(String command, List<String> extra) {
        return new Command.Invalid(command + " takes no further arguments, got: " + String.join(" ", extra));
    }
}
