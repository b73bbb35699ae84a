package dev.sluice.runtime.combo.strategy;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A {@code fusion} combo's options (issue 34): {@code strategyOptions.panel}, one to
 * {@value #MAX_PANEL} {@link FlowMember}s asked in parallel (default: every target of the combo,
 * when it has at most {@value #MAX_PANEL}), and {@code strategyOptions.judge}, the member that
 * writes the answer from theirs.
 *
 * @param panel the panel, in order
 * @param judge the judge
 */
public record FusionPanel(List<FlowMember> panel, FlowMember judge) {

    /** The panel option. */
    public static final String PANEL = "panel";
    /** The judge option. */
    public static final String JUDGE = "judge";
    /** The most panel members: each is an upstream call made at once. */
    public static final int MAX_PANEL = 5;

    /** Validates and copies. */
    public FusionPanel {
        panel = List.copyOf(panel);
        requireNonNull(judge, "judge is null");
    }

    /**
     * Reads the options.
     *
     * @param options the combo's strategy options
     * @param targets how many targets the combo has, or -1 when unknown
     * @return the panel and judge
     * @throws IllegalArgumentException naming the option
     */
    public static FusionPanel from(Map<String, Object> options, int targets) {
        Object j = options.get(JUDGE);
        if (j == null) {
            throw new IllegalArgumentException("strategyOptions.judge is required: {\"target\": index} or {\"model\": \"provider/model\"}");
        }
        FlowMember judge = FlowMember.read(j, "strategyOptions.judge", targets, Set.of());
        Object p = options.get(PANEL);
        List<FlowMember> panel = new ArrayList<>();
        if (p == null) {
            if (targets > MAX_PANEL) {
                throw new IllegalArgumentException("strategyOptions.panel is required when the combo has more than " + MAX_PANEL
                        + " targets (the panel is asked in parallel: at most " + MAX_PANEL + " members)");
            }
            for (int i = 0; i < Math.max(targets, 0); i++) {
                panel.add(new FlowMember(i, null));
            }
            return new FusionPanel(panel, judge);
        }
        if (!(p instanceof List<?> list) || list.isEmpty() || list.size() > MAX_PANEL) {
            throw new IllegalArgumentException("strategyOptions.panel must be an array of 1 to " + MAX_PANEL
                    + " members, each {\"target\": index} or {\"model\": \"provider/model\"}");
        }
        for (int i = 0; i < list.size(); i++) {
            panel.add(FlowMember.read(list.get(i), "strategyOptions.panel[" + i + "]", targets, Set.of()));
        }
        return new FusionPanel(panel, judge);
    }
}
