package dev.sluice.runtime.discovery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A discovery as the JSON text kept in the connection's row:
 * {@code {"ids":[…],"at":epochMs,"error":"…"|null}}. An unreadable text reads as nothing (the
 * next discovery writes it again).
 */
final class StoredDiscovery {

    private final ObjectMapper mapper;

    StoredDiscovery(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    String write(DiscoveredModels d) {
        ObjectNode o = mapper.createObjectNode();
        d.ids().forEach(o.putArray("ids")::add);
        o.put("at", d.at());
        if (d.error() == null) {
            o.putNull("error");
        } else {
            o.put("error", d.error());
        }
        return o.toString();
    }

    Optional<DiscoveredModels> read(String text) {
        if (text == null) {
            return Optional.empty();
        }
        try {
            JsonNode o = mapper.readTree(text);
            JsonNode ids = o.get("ids");
            if (ids == null || !ids.isArray() || !o.path("at").canConvertToLong()) {
                return Optional.empty();
            }
            List<String> out = new ArrayList<>(ids.size());
            ids.forEach(id -> {
                if (id.isTextual() && ModelsEndpoint.usable(id.asText())) {
                    out.add(id.asText());
                }
            });
            JsonNode error = o.get("error");
            return Optional.of(new DiscoveredModels(out, o.get("at").asLong(), error == null || !error.isTextual() ? null : error.asText()));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
