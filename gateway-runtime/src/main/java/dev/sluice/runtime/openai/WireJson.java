package dev.sluice.runtime.openai;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The small pieces every OpenAI reader and writer shares: unknown fields carried as raw JSON
 * ({@code extra}), lenient text reads, and one way to run a generator into bytes.
 */
final class WireJson {

    private WireJson() {
    }

    /** Writing work for a generator. */
    @FunctionalInterface
    interface GenWork {
        void write(JsonGenerator g) throws IOException;
    }

    static byte[] write(JsonFactory factory, GenWork work) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(512);
        writeTo(factory, out, work);
        return out.toByteArray();
    }

    static void writeTo(JsonFactory factory, ByteArrayOutputStream out, GenWork work) {
        try (JsonGenerator g = factory.createGenerator(out)) {
            work.write(g);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The fields of {@code root} not in {@code known}, each as raw JSON, in document order. */
    static Map<String, String> extras(ObjectNode root, Set<String> known) {
        return extras(root, known, "");
    }

    /**
     * The fields of an object its reader does not name, as JSON text (written raw upstream).
     *
     * @param root the object
     * @param known the fields its reader names
     * @param path the object's path and a dot, for errors ({@code messages[2].}), or empty at the top
     * @return the others
     */
    static Map<String, String> extras(ObjectNode root, Set<String> known, String path) {
        Map<String, String> extra = null;
        Iterator<Map.Entry<String, JsonNode>> it = root.properties().iterator();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!known.contains(e.getKey())) {
                if (extra == null) {
                    extra = new LinkedHashMap<>();
                }
                extra.put(e.getKey(), JsonFields.rawJson(path + e.getKey(), e.getValue()));
            }
        }
        return extra == null ? Map.of() : extra;
    }

    static void writeExtras(JsonGenerator g, Map<String, String> extra) throws IOException {
        for (Map.Entry<String, String> e : extra.entrySet()) {
            g.writeFieldName(e.getKey());
            g.writeRawValue(e.getValue());
        }
    }

    static void writeNullableString(JsonGenerator g, String field, String value) throws IOException {
        if (value == null) {
            g.writeNullField(field);
        } else {
            g.writeStringField(field, value);
        }
    }

    /** A string as itself, any other value as its JSON, null and absent as null. */
    static String textOrNull(JsonNode n) {
        return n == null || n.isNull() ? null : n.isTextual() ? n.asText() : n.toString();
    }
}
