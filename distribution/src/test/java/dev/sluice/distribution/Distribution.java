package dev.sluice.distribution;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The zip that {@code mvn package} built in this module, and its unpacking. The zip is read
 * through the JDK's zip file system with POSIX attributes enabled, so that unpacking keeps
 * {@code bin/sluice} executable exactly as {@code unzip} would.
 */
final class Distribution {

    private Distribution() {
    }

    /** The zip; failsafe passes its path, and a run from the IDE finds it in {@code target/}. */
    static Path zip() {
        String configured = System.getProperty("sluice.dist.zip");
        Path zip;
        if (configured != null && !configured.isBlank()) {
            zip = Path.of(configured);
        } else {
            try (Stream<Path> target = Files.list(Path.of("target"))) {
                zip = target.filter(p -> p.getFileName().toString().matches("sluice-.*\\.zip")).findFirst()
                        .orElse(Path.of("target", "sluice.zip"));
            } catch (IOException e) {
                zip = Path.of("target", "sluice.zip");
            }
        }
        assertThat(zip).as("the distribution zip (run `mvn package` in distribution/ first)").isRegularFile();
        return zip;
    }

    /** The zip's top folder, e.g. {@code sluice-0.1.0-SNAPSHOT}. */
    static String topFolderName() {
        String name = zip().getFileName().toString();
        return name.substring(0, name.length() - ".zip".length());
    }

    /**
     * Opens the zip as a file system whose entries report their POSIX permissions.
     *
     * @return the file system; the caller closes it
     */
    static FileSystem open() {
        try {
            return FileSystems.newFileSystem(zip(), Map.of("enablePosixFileAttributes", "true"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Unpacks the zip into {@code dir}.
     *
     * @param dir the target folder
     * @return the Sluice home: {@code dir/sluice-<version>}
     */
    static Path unpack(Path dir) {
        try (FileSystem zipFs = open()) {
            Path root = zipFs.getPath("/");
            List<Path> entries;
            try (Stream<Path> walk = Files.walk(root)) {
                entries = walk.toList();
            }
            for (Path entry : entries) {
                if (entry.equals(root)) {
                    continue;
                }
                Path target = dir.resolve(root.relativize(entry).toString());
                if (Files.isDirectory(entry)) {
                    Files.createDirectories(target);
                } else {
                    Files.createDirectories(target.getParent());
                    Files.copy(entry, target);
                    Set<PosixFilePermission> mode = permissions(entry);
                    if (!mode.isEmpty()) {
                        Files.setPosixFilePermissions(target, mode);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot unpack " + zip(), e);
        }
        Path home = dir.resolve(topFolderName());
        assertThat(home).as("top folder of the zip").isDirectory();
        return home;
    }

    /** The POSIX permissions stored in the zip for an entry; empty when the zip recorded none. */
    static Set<PosixFilePermission> permissions(Path zipEntry) throws IOException {
        PosixFileAttributeView view = Files.getFileAttributeView(zipEntry, PosixFileAttributeView.class);
        return view == null ? Set.of() : view.readAttributes().permissions();
    }
}
