package dev.sluice.plugin.claude;

import dev.sluice.toolkit.json.Json;
import dev.sluice.toolkit.json.JsonException;

import dev.sluice.api.chat.ContentPart;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Canonical content parts as Anthropic content blocks (text, images, documents, Anthropic blocks kept as given). */
final class ContentBlocks {

    /**
     * Content block types Anthropic accepts; a canonical content part of one of these types (e.g.
     * from an Anthropic-format client) is passed verbatim. Other unknown parts are dropped.
     */
    private static final Set<String> ANTHROPIC_BLOCK_TYPES = Set.of("text", "image", "document", "search_result", "tool_use",
            "tool_result", "thinking", "redacted_thinking", "server_tool_use", "web_search_tool_result", "container_upload");

    /**
     * Content parts as Anthropic blocks: text (empty text dropped: Anthropic rejects it), images
     * (only where {@code imagesAllowed}: assistant turns cannot carry images), PDF/text files given
     * as data, and parts that already are Anthropic blocks. Other parts are dropped.
     */
    static List<Map<String, Object>> of(List<ContentPart> parts, boolean imagesAllowed) {
        List<Map<String, Object>> blocks = new ArrayList<>(parts.size());
        for (ContentPart p : parts) {
            switch (p) {
                case ContentPart.Text t -> {
                    if (!t.text().isEmpty()) {
                        blocks.add(text(t.text()));
                    }
                }
                case ContentPart.Image img -> {
                    if (imagesAllowed) {
                        Map<String, Object> source = source(img.url());
                        if (source != null) {
                            Map<String, Object> block = new LinkedHashMap<>();
                            block.put("type", "image");
                            block.put("source", source);
                            blocks.add(block);
                        }
                    }
                }
                case ContentPart.Other o -> {
                    Map<String, Object> block = o.type().equals("file") ? fileBlock(o.json())
                            : ANTHROPIC_BLOCK_TYPES.contains(o.type()) ? parse(o.json()) : null;
                    if (block != null && (imagesAllowed || !"image".equals(block.get("type")))) {
                        blocks.add(block);
                    }
                }
            }
        }
        return blocks;
    }

    /** An OpenAI {@code file} part with inline {@code file_data} as an Anthropic {@code document}. */
    private static Map<String, Object> fileBlock(String json) {
        Map<String, Object> part = parse(json);
        String data = Json.string(Json.object(part, "file"), "file_data");
        Map<String, Object> source = data == null ? null : dataSource(data);
        if (source == null) {
            return null; // file_id references live at OpenAI: nothing to send
        }
        Map<String, Object> block = new LinkedHashMap<>();
        block.put("type", "document");
        block.put("source", source);
        return block;
    }

    /** An image URL as an Anthropic image source: data URLs inline (base64), http(s) by URL. */
    private static Map<String, Object> source(String url) {
        if (url.regionMatches(true, 0, "data:", 0, 5)) {
            return dataSource(url);
        }
        if (url.regionMatches(true, 0, "https://", 0, 8) || url.regionMatches(true, 0, "http://", 0, 7)) {
            Map<String, Object> source = new LinkedHashMap<>();
            source.put("type", "url");
            source.put("url", url);
            return source;
        }
        return null;
    }

    /** {@code data:<media type>;base64,<data>} as a base64 source; other data URLs are not supported. */
    private static Map<String, Object> dataSource(String url) {
        if (!url.regionMatches(true, 0, "data:", 0, 5)) {
            return null;
        }
        int comma = url.indexOf(',');
        if (comma < 0) {
            return null;
        }
        String[] meta = url.substring(5, comma).split(";");
        boolean base64 = false;
        for (int i = 1; i < meta.length; i++) {
            base64 |= meta[i].strip().equalsIgnoreCase("base64");
        }
        String mediaType = meta[0].strip();
        if (!base64 || mediaType.isEmpty()) {
            return null;
        }
        Map<String, Object> source = new LinkedHashMap<>();
        source.put("type", "base64");
        source.put("media_type", mediaType.toLowerCase(java.util.Locale.ROOT));
        source.put("data", url.substring(comma + 1));
        return source;
    }

    static Map<String, Object> text(String text) {
        Map<String, Object> block = new LinkedHashMap<>();
        block.put("type", "text");
        block.put("text", text);
        return block;
    }

    static boolean isPlainText(Map<String, Object> block) {
        return block.size() == 2 && "text".equals(block.get("type")) && block.get("text") instanceof String;
    }

    static Map<String, Object> parse(String json) {
        try {
            return Json.parse(json) instanceof Map<?, ?> m ? Json.mutableObject(m) : null;
        } catch (JsonException e) {
            return null;
        }
    }

    private ContentBlocks() {
    }
}
