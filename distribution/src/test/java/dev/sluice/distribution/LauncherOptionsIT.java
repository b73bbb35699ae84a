package dev.sluice.distribution;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JVM options {@code bin/sluice} starts the server with (issue 26): the measured defaults, and
 * compact object headers exactly when the JVM is 25 or newer (JDK 21–24 would refuse the option).
 */
class LauncherOptionsIT {

    @TempDir
    Path unpacked;

    @TempDir
    Path data;

    @RegisterExtension
    final SluiceServers servers = new SluiceServers();

    @Test
    @EnabledOnOs(OS.LINUX)
    void theServerRunsWithTheMeasuredDefaultsAndCompactHeadersOnJdk25_I26() throws IOException {
        Path home = Distribution.unpack(unpacked);
        SluiceProcess sluice = servers.start(home, SluiceProcess.env(data, "sk-admin-" + UUID.randomUUID()));
        // bin/sluice execs java: the script's pid is the JVM's
        byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(sluice.pid()), "cmdline"));
        List<String> args = Arrays.asList(new String(raw, StandardCharsets.UTF_8).split("\0"));
        assertThat(args).contains("-XX:+UseSerialGC", "-Xmx192m", "-Xmn32m", "-XX:SurvivorRatio=4");
        if (Runtime.version().feature() >= 25) {
            assertThat(args).contains("-XX:+UseCompactObjectHeaders");
        } else {
            assertThat(args).doesNotContain("-XX:+UseCompactObjectHeaders");
        }
    }
}
