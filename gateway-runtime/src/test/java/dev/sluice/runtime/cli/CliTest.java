package dev.sluice.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CliTest {

    @TempDir
    Path home;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(Map<String, String> env, String... args) {
        return Cli.run(CommandLine.parse(List.of(args)), home, env, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void helpPrintsTheUsageOnStandardOutputAndExitsZero() {
        assertThat(run(Map.of(), "--help")).isEqualTo(Cli.OK);
        assertThat(out()).startsWith(CommandLine.USAGE);
        assertThat(err()).isEmpty();
    }

    @Test
    void anUnknownCommandPrintsTheProblemAndTheUsageOnStandardErrorAndExitsTwo() {
        assertThat(run(Map.of(), "stop")).isEqualTo(Cli.USAGE);
        assertThat(err()).startsWith("sluice: unknown command: stop\n").contains(CommandLine.USAGE);
        assertThat(out()).isEmpty();
    }

    @Test
    void serveIsNotACliCommand() {
        assertThatThrownBy(() -> run(Map.of(), "serve")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void adminCommandsWithoutAnAdminKeyExitTwoNamingTheVariable() {
        for (String[] args : List.of(new String[] {"providers", "list"}, new String[] {"keys", "create", "--name", "x"},
                new String[] {"cooldowns", "list"}, new String[] {"cooldowns", "clear"}, new String[] {"breakers", "reset"})) {
            err.reset();
            assertThat(run(Map.of("SLUICE_ADMIN_KEY", "  "), args)).as(String.join(" ", args)).isEqualTo(Cli.USAGE);
            assertThat(err()).contains("set SLUICE_ADMIN_KEY");
        }
    }

    @Test
    void aSluiceUrlThatIsNotHttpExitsTwo() {
        assertThat(run(Map.of("SLUICE_ADMIN_KEY", "k", "SLUICE_URL", "ftp://host"), "providers", "list")).isEqualTo(Cli.USAGE);
        assertThat(err()).contains("SLUICE_URL must be an http or https URL").contains("ftp://host");
        assertThat(Cli.serverUrl("localhost:20128")).isNull();
        assertThat(Cli.serverUrl("http://127.0.0.1:20128/")).isNotNull();
        assertThat(Cli.serverUrl("https://gw.example/sluice")).isNotNull();
    }

    @Test
    void noServerListeningExitsOneWithAClearMessage() throws IOException {
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        String url = "http://127.0.0.1:" + port;
        assertThat(run(Map.of("SLUICE_ADMIN_KEY", "k", "SLUICE_URL", url), "providers", "list")).isEqualTo(Cli.FAILED);
        assertThat(err()).isEqualTo("sluice: cannot connect to Sluice at " + url
                + ": connection refused. Is the server running? (SLUICE_URL sets its address)\n");
        assertThat(out()).isEmpty();
    }

    @Test
    void durationsAreRoundedUpToWholeSeconds() {
        assertThat(AdminCommands.duration(1)).isEqualTo("1s");
        assertThat(AdminCommands.duration(59_000)).isEqualTo("59s");
        assertThat(AdminCommands.duration(200_000)).isEqualTo("3m 20s");
        assertThat(AdminCommands.duration(7_500_000)).isEqualTo("2h 5m");
    }

    @Test
    void tablesAlignColumnsAndShowMissingValuesAsDashes() {
        String table = new Table("ID", "NAME", "PRIORITY").row("a1", "team key", "1").row("b22222", null, "10").render();
        assertThat(table).isEqualTo("""
                ID      NAME      PRIORITY
                a1      team key  1
                b22222  -         10
                """);
    }
}
