package dev.sluice.runtime.cli;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Optional;

/** One invocation of {@code bin/sluice}, as parsed by {@link CommandLine}. */
public sealed interface Command {

    /** Start the server in the foreground (also what no arguments mean). */
    record Serve() implements Command {
    }

    /** Print the usage and succeed. */
    record Help() implements Command {
    }

    /**
     * Arguments that mean nothing: print the problem and the usage, exit 2, start nothing.
     *
     * @param problem what was wrong, for the operator
     */
    record Invalid(String problem) implements Command {
        /** Validates the fields. */
        public Invalid {
            requireNonNull(problem, "problem is null");
        }
    }

    /** Re-encrypt the stored credentials under a new secret key (the server stopped). */
    record RotateKey() implements Command {
    }

    /** Check the installation without starting a server. */
    record Doctor() implements Command {
    }

    /** A command answered by a running server's admin API. */
    sealed interface Admin extends Command {
    }

    /** {@code GET /api/providers} as a table. */
    record ProvidersList() implements Admin {
    }

    /**
     * {@code POST /api/keys}.
     *
     * @param name the key's display name
     */
    record KeysCreate(String name) implements Admin {
        /** Validates the fields. */
        public KeysCreate {
            requireNonNull(name, "name is null");
        }
    }

    /** {@code GET /api/resilience/cooldowns} as a table. */
    record CooldownsList() implements Admin {
    }

    /**
     * {@code POST /api/resilience/cooldowns}.
     *
     * @param connectionIds the connections to clear; empty = all of them
     */
    record CooldownsClear(List<String> connectionIds) implements Admin {
        /** Validates the fields and copies the list. */
        public CooldownsClear {
            connectionIds = List.copyOf(requireNonNull(connectionIds, "connectionIds is null"));
        }
    }

    /**
     * {@code POST /api/resilience/cooldowns} with {@code "reactivate": true} (issue 27).
     *
     * @param connectionIds the terminal connections to bring back; never empty
     */
    record ConnectionsReactivate(List<String> connectionIds) implements Admin {
        /** Validates the fields and copies the list. */
        public ConnectionsReactivate {
            connectionIds = List.copyOf(requireNonNull(connectionIds, "connectionIds is null"));
        }
    }

    /**
     * {@code POST /api/resilience/reset}.
     *
     * @param provider the provider whose breakers to reset; empty = every provider's
     */
    record BreakersReset(Optional<String> provider) implements Admin {
        /** Validates the fields. */
        public BreakersReset {
            requireNonNull(provider, "provider is null");
        }
    }

    /**
     * {@code login PROVIDER [--name N] [--device]}: a subscription login through the admin API (issue 36).
     *
     * @param provider the provider id
     * @param name the connection's name, or empty
     * @param device whether to ask for the device-code flow
     */
    record Login(String provider, Optional<String> name, boolean device) implements Admin {
        /** Validates. */
        public Login {
            requireNonNull(provider, "provider is null");
            requireNonNull(name, "name is null");
        }
    }

    /**
     * {@code import PROVIDER [--file F]}: a connection from the credentials an official CLI stored (issue 36).
     *
     * @param provider the provider id
     * @param file the credentials file, or empty for the CLI's default path
     */
    record Import(String provider, Optional<String> file) implements Admin {
        /** Validates. */
        public Import {
            requireNonNull(provider, "provider is null");
            requireNonNull(file, "file is null");
        }
    }
}
