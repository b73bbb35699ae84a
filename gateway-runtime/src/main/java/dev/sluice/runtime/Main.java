package dev.sluice.runtime;

import dev.sluice.runtime.cli.Cli;
import dev.sluice.runtime.cli.Command;
import dev.sluice.runtime.cli.CommandLine;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;

/**
 * Entry point: reads the configuration, starts the server, stops it on SIGTERM; hands every other
 * command of {@code bin/sluice} to {@link Cli}. Wiring only.
 */
public final class Main {

    private Main() {
    }

    /**
     * Starts Sluice ({@code serve}, or no arguments) or runs one of {@code bin/sluice}'s other
     * commands and exits with its status.
     *
     * @param args the command line; see {@link CommandLine#USAGE}
     */
    public static void main(String[] args) {
        Path home = Path.of(System.getProperty("sluice.home", ".")).toAbsolutePath().normalize();
        Command command = CommandLine.parse(List.of(args));
        if (!(command instanceof Command.Serve)) {
            // anything that is not serve, a typo included, runs and exits: it never starts a server
            System.exit(Cli.run(command, home, System.getenv(), System.out, System.err));
            return;
        }
        SluiceConfig config;
        SluiceServer server;
        try {
            config = ConfigLoader.load(home, System.getenv());
            server = SluiceServer.start(config, Clock.systemUTC(), ModuleLayer.boot(), System.out);
        } catch (RuntimeException e) {
            if (e.getMessage() == null) {
                // not one of the explained start-up failures: a defect, shown whole so it can be reported
                System.err.println("Sluice failed to start: " + e);
                e.printStackTrace();
            } else {
                System.err.println("Sluice failed to start: " + e.getMessage());
            }
            System.exit(1);
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "sluice-shutdown"));
    }
}
