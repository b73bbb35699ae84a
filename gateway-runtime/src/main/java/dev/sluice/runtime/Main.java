package dev.sluice.runtime;

import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import java.nio.file.Path;
import java.time.Clock;

/** Entry point: reads the configuration, starts the server, stops it on SIGTERM. Wiring only. */
public final class Main {

    private Main() {
    }

    /**
     * Starts Sluice.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
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
