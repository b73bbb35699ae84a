package dev.sluice.runtime.openai;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Reading client JSON with errors that name the field ({@link InvalidRequestException}): shared by
 * the OpenAI and the Anthropic codecs, so both dialects validate alike.
 */
public final class JsonFields {

    /** Longest accepted model string. */
    public static final int MAX_MODEL_LENGTH = ModelNames.MAX_LENGTH;

    private JsonFields() {
    }

    /**
     * The model string, valid by {@link ModelNames} (it names routes, goes into upstream bodies,
     * paths and headers). Every client API reads it here, so none forwards what another refuses.
     *
     * @param root the request object
     * @return the model
     */
    public static String modelName(ObjectNode root) {
        String model = requiredString(root, "model");
        String problem = ModelNames.problem("model", model);
        if (problem != null) {
            throw new InvalidRequestException("model", problem);
        }
        return model;
    }

    /**
     * The JSON text of a client value that goes upstream as it is (written raw into the upstream's
     * body). A lone UTF-16 surrogate ({@code "\ud800"}) parses, but is no character and cannot be
     * written as UTF-8: it is refused here, naming the field (issue 29), instead of failing the
     * upstream request as a 502. One pass over the value's own text, not over the body.
     *
     * @param field the field's path, for the error
     * @param node the value
     * @return its JSON text
     */
    public static String rawJson(String field, JsonNode node) {
        String text = node.toString();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                    i++;
                    continue;
                }
                throw new InvalidRequestException(field, "'" + field + "' contains a lone UTF-16 surrogate (\\u"
                        + Integer.toHexString(c) + "), which is not a character.");
            }
        }
        return text;
    }

    /**
     * Parses a request body that must be a JSON object.
     *
     * @param mapper the mapper
     * @param body the body
     * @return the object
     */
    public static ObjectNode parseObject(ObjectMapper mapper, byte[] body) {
        if (body.length == 0) {
            throw new InvalidRequestException(null, "Request body is empty; expected a JSON object.");
        }
        try {
            JsonNode n = mapper.readTree(body);
            if (n instanceof ObjectNode o) {
                return o;
            }
            throw new InvalidRequestException(null, "Request body must be a JSON object.");
        } catch (JsonProcessingException e) {
            // parser-limit violations (nesting, number length) carry no location
            throw new InvalidRequestException(null, "Request body is not valid JSON" + (e.getLocation() == null
                    ? ": " + e.getOriginalMessage()
                    : " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")."));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A required, non-blank string field.
     *
     * @param root the object
     * @param field the field
     * @return the value
     */
    public static String requiredString(ObjectNode root, String field) {
        JsonNode n = root.get(field);
        if (n == null || n.isNull()) {
            throw new InvalidRequestException(field, "Missing required parameter: '" + field + "'.");
        }
        if (!n.isTextual() || n.asText().isBlank()) {
            throw new InvalidRequestException(field, "'" + field + "' must be a non-empty string.");
        }
        return n.asText();
    }

    /**
     * An optional boolean field, false when absent.
     *
     * @param root the object
     * @param field the field
     * @return the value
     */
    public static boolean optionalBoolean(ObjectNode root, String field) {
        JsonNode n = root.get(field);
        if (n == null || n.isNull()) {
            return false;
        }
        if (!n.isBoolean()) {
            throw new InvalidRequestException(field, "'" + field + "' must be a boolean.");
        }
        return n.asBoolean();
    }

    /**
     * An optional integer field with a lower bound.
     *
     * @param root the object
     * @param field the field
     * @param min the smallest accepted value
     * @return the value, or null when absent
     */
    public static Integer optionalInt(ObjectNode root, String field, int min) {
        JsonNode n = root.get(field);
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isIntegralNumber() || !n.canConvertToInt() || n.asInt() < min) {
            throw new InvalidRequestException(field, "'" + field + "' must be an integer >= " + min + ".");
        }
        return n.asInt();
    }

    /**
     * An optional number field.
     *
     * @param root the object
     * @param field the field
     * @return the value, or null when absent
     */
    public static Double optionalNumber(ObjectNode root, String field) {
        JsonNode n = root.get(field);
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isNumber()) {
            throw new InvalidRequestException(field, "'" + field + "' must be a number.");
        }
        return n.asDouble();
    }
}
