package dev.sluice.runtime.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.combo.Combo;
import dev.sluice.runtime.combo.ComboStore;
import dev.sluice.runtime.combo.ComboTarget;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@link ComboStore} on SQLite or PostgreSQL (SPEC DM-3 {@code combos}): strategy options and targets are JSON
 * columns. Reads come from an immutable snapshot, ordered by name, that every write refreshes
 * (snapshots are published in write order) and that change notifications of other instances refresh
 * ({@link #follow}).
 */
public final class JdbcComboStore implements ComboStore {

    /** What the change notifications of this store name. */
    static final String TOPIC = "combos";

    private static final String COLUMNS = "name, strategy, strategy_options, targets, created_at, updated_at";
    private static final TypeReference<LinkedHashMap<String, Object>> OPTIONS = new TypeReference<>() {
    };

    private final ObjectMapper mapper;
    private final InstantSource clock;
    private final AnnouncedSnapshot<Snapshot> snapshot;

    /** The combos in name order, and by name. */
    private record Snapshot(List<Combo> list, Map<String, Combo> byName) {
    }

    /**
     * Creates the store and loads the snapshot.
     *
     * @param db the database
     * @param mapper the JSON mapper (options and targets columns)
     * @param clock the clock (created/updated timestamps)
     */
    public JdbcComboStore(Database db, ObjectMapper mapper, InstantSource clock) {
        this.mapper = mapper;
        this.clock = clock;
        this.snapshot = new AnnouncedSnapshot<>(db, TOPIC, this::read);
    }

    /**
     * Re-reads the combos whenever another instance announces a change.
     *
     * @param feed the change notifications
     */
    public void follow(ChangeFeed feed) {
        snapshot.follow(feed, null);
    }

    @Override
    public List<Combo> list() {
        return snapshot.get().list();
    }

    @Override
    public Optional<Combo> find(String name) {
        return Optional.ofNullable(snapshot.get().byName().get(name));
    }

    @Override
    public Optional<Combo> create(Combo combo) {
        long now = clock.millis();
        String options = optionsJson(combo.strategyOptions());
        String targets = targetsJson(combo.targets());
        int n = snapshot.write(c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO combos (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?)"
                    + " ON CONFLICT(name) DO NOTHING")) {
                ps.setString(1, combo.name());
                ps.setString(2, combo.strategy());
                ps.setString(3, options);
                ps.setString(4, targets);
                ps.setLong(5, now);
                ps.setLong(6, now);
                return ps.executeUpdate();
            }
        });
        return n == 0 ? Optional.empty() : find(combo.name());
    }

    @Override
    public Optional<Combo> update(Combo combo) {
        String options = optionsJson(combo.strategyOptions());
        String targets = targetsJson(combo.targets());
        int n = snapshot.write(c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE combos SET strategy=?, strategy_options=?, targets=?, updated_at=?"
                    + " WHERE name=?")) {
                ps.setString(1, combo.strategy());
                ps.setString(2, options);
                ps.setString(3, targets);
                ps.setLong(4, clock.millis());
                ps.setString(5, combo.name());
                return ps.executeUpdate();
            }
        });
        return n == 0 ? Optional.empty() : find(combo.name());
    }

    @Override
    public boolean delete(String name) {
        int n = snapshot.write(c -> {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM combos WHERE name=?")) {
                ps.setString(1, name);
                return ps.executeUpdate();
            }
        });
        return n > 0;
    }

    private Snapshot read(java.sql.Connection c) throws SQLException {
        List<Combo> all = new ArrayList<>();
        Map<String, Combo> byName = new LinkedHashMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM combos ORDER BY name");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                Combo combo = read(rs);
                all.add(combo);
                byName.put(combo.name(), combo);
            }
        }
        return new Snapshot(List.copyOf(all), Map.copyOf(byName));
    }

    private Combo read(ResultSet rs) throws SQLException {
        String name = rs.getString("name");
        try {
            Map<String, Object> options = mapper.readValue(rs.getString("strategy_options"), OPTIONS);
            options.values().removeIf(java.util.Objects::isNull);
            List<ComboTarget> targets = new ArrayList<>();
            for (JsonNode t : mapper.readTree(rs.getString("targets"))) {
                targets.add(new ComboTarget(t.path("model").asText(), text(t, "connectionId"), integer(t, "weight"),
                        integer(t, "priority"), t.hasNonNull("costPer1kTokens") ? t.get("costPer1kTokens").asDouble() : null));
            }
            return new Combo(name, rs.getString("strategy"), options, targets, rs.getLong("created_at"), rs.getLong("updated_at"));
        } catch (JsonProcessingException | IllegalArgumentException e) {
            throw new StoreException("combo '" + name + "' is stored in an unreadable form: " + e.getMessage(), e);
        }
    }

    private static String text(JsonNode n, String field) {
        return n.hasNonNull(field) ? n.get(field).asText() : null;
    }

    private static Integer integer(JsonNode n, String field) {
        return n.hasNonNull(field) ? n.get(field).asInt() : null;
    }

    private String optionsJson(Map<String, Object> options) {
        try {
            return mapper.writeValueAsString(options);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("strategy options are not plain JSON values: " + e.getMessage(), e);
        }
    }

    private String targetsJson(List<ComboTarget> targets) {
        ArrayNode array = mapper.createArrayNode();
        for (ComboTarget t : targets) {
            ObjectNode o = array.addObject();
            o.put("model", t.model());
            if (t.connectionId() != null) {
                o.put("connectionId", t.connectionId());
            }
            if (t.weight() != null) {
                o.put("weight", t.weight());
            }
            if (t.priority() != null) {
                o.put("priority", t.priority());
            }
            if (t.costPer1kTokens() != null) {
                o.put("costPer1kTokens", t.costPer1kTokens());
            }
        }
        return array.toString();
    }
}
