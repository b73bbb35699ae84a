package dev.sluice.runtime.anthropic;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/** One way to run a generator into bytes, for the Anthropic writers. */
final class AnthropicJson {

    private AnthropicJson() {
    }

    /** Writing work for a generator. */
    @FunctionalInterface
    interface GenWork {
        void write(JsonGenerator g) throws IOException;
    }

    static byte[] write(JsonFactory factory, GenWork work) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(512);
        try (JsonGenerator g = factory.createGenerator(out)) {
            work.write(g);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
