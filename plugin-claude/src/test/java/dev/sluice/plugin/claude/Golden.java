package dev.sluice.plugin.claude;

import dev.sluice.toolkit.json.Json;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** Reads golden files from src/test/resources/golden. */
final class Golden {

    private Golden() {
    }

    static String read(String path) {
        try (InputStream in = Golden.class.getResourceAsStream("/golden/" + path)) {
            if (in == null) {
                throw new IllegalArgumentException("no golden file " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Object json(String path) {
        return Json.parse(read(path));
    }
}
