package dev.sluice.runtime;

import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import java.nio.file.Path;
import java.time.Clock;

/** Entry point: reads the configuration, starts the server, stops it on SIGTERM. Wiring only. */
public final class Main {

    private Main() {
    }

    static final String USAGE = """
            Usage: bin/sluice
              Starts the Sluice server in the foreground; stop it with Ctrl-C or SIGTERM.
              Settings come from conf/sluice.yaml (or the file named by SLUICE_CONFIG) and SLUICE_*
              environment variables; see docs/operator-guide.md.""";

    /**
     * Starts Sluice.
     *
     * @param args none; {@code --help} prints the usage, anything else is refused
     */
    public static void main(String[] args) {
        if (args.length > 0) {
            // an operator who types "bin/sluice stop" must not get a second server
            boolean help = args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"));
            if (!help) {
                System.err.println("Sluice takes no arguments, got: " + String.join(" ", args));
            }
            (help ? System.out : System.err).println(USAGE);
            System.exit(help ? 0 : 2);
            return;
        }
        Path home = Path.of(System.getProperty("sluice.home", ".")).toAbsolutePath().normalize();
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
