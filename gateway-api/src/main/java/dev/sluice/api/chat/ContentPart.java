package dev.sluice.api.chat;

import static java.util.Objects.requireNonNull;

/** One part of a message's content. */
public sealed interface ContentPart {

    /**
     * Text.
     *
     * @param text the text
     */
    record Text(String text) implements ContentPart {
        /** Validates the field. */
        public Text {
            requireNonNull(text, "text is null");
        }
    }

    /**
     * An image by URL (http(s) or a {@code data:} URL).
     *
     * @param url the image URL
     * @param detail OpenAI's detail hint ({@code auto}, {@code low}, {@code high}), or null
     */
    record Image(String url, String detail) implements ContentPart {
        /** Validates the field. */
        public Image {
            requireNonNull(url, "url is null");
        }
    }

    /**
     * A part of a type the canonical model does not name, kept verbatim.
     *
     * @param type the part's {@code type}
     * @param json the whole part as raw JSON
     */
    record Other(String type, String json) implements ContentPart {
        /** Validates the fields. */
        public Other {
            requireNonNull(type, "type is null");
            requireNonNull(json, "json is null");
        }
    }
}
