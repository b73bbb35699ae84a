package dev.sluice.runtime.plugin;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * One unit that gets its own module layer: a JAR directly in {@code plugins/}, or a folder
 * {@code plugins/<name>/} whose JARs (the plugin and its private dependencies) share one layer.
 *
 * @param name the file or folder name, as operators see it in {@code plugins/}
 * @param path the JAR file or the folder
 * @param folder true for a folder source
 */
record PluginSource(String name, Path path, boolean folder) {

    /** Sorting by name, not by listing order, makes "the first plugin wins" reproducible. */
    private static final Comparator<Path> BY_FILE_NAME = Comparator.comparing(PluginSource::fileName);

    PluginSource {
        requireNonNull(name, "name is null");
        requireNonNull(path, "path is null");
    }

    /**
     * The sources in a plugins folder, in the order they are loaded. Hidden entries (editor and OS
     * droppings such as {@code .DS_Store}) and files that are not JARs (a README) are not sources.
     *
     * @param dir the plugins folder; must exist
     * @return the sources sorted by name
     * @throws IOException when the folder cannot be listed
     */
    static List<PluginSource> scan(Path dir) throws IOException {
        List<PluginSource> sources = new ArrayList<>();
        for (Path entry : list(dir)) {
            if (Files.isDirectory(entry)) {
                sources.add(new PluginSource(fileName(entry), entry, true));
            } else if (isJar(entry)) {
                sources.add(new PluginSource(fileName(entry), entry, false));
            }
        }
        return sources;
    }

    /**
     * The JARs of this source, sorted by file name. Listed only when the source is loaded, so
     * that an unreadable folder fails that one source instead of the whole scan.
     *
     * @return the JARs; empty for a folder without JARs
     * @throws IOException when the folder cannot be listed
     */
    List<Path> jars() throws IOException {
        if (!folder) {
            return List.of(path);
        }
        return list(path).stream().filter(PluginSource::isJar).toList();
    }

    /**
     * How a JAR of this source is named in messages: the bare file name for a single JAR, and
     * {@code folder/file.jar} inside a folder so the operator knows which of its JARs is meant.
     */
    String describe(Path jar) {
        return folder ? name + "/" + fileName(jar) : fileName(jar);
    }

    private static List<Path> list(Path dir) throws IOException {
        try (Stream<Path> listing = Files.list(dir)) {
            return listing.filter(p -> !fileName(p).startsWith(".")).sorted(BY_FILE_NAME).toList();
        }
    }

    private static boolean isJar(Path p) {
        return Files.isRegularFile(p) && fileName(p).toLowerCase(Locale.ROOT).endsWith(".jar");
    }

    static String fileName(Path p) {
        Path name = p.getFileName();
        return name == null ? p.toString() : name.toString();
    }
}
