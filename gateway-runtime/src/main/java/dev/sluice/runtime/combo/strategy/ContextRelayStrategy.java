package dev.sluice.runtime.combo.strategy;

import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.api.combo.ComboTargetView;
import java.util.List;
import java.util.Map;

/**
 * {@code context-relay} (issue 34): {@code priority}'s order. What makes it a relay happens in
 * the router's executor ({@code combo.flow.ContextRelay}): when a conversation moves to another
 * target and fills more than {@code relayThreshold} of that target's window, its older turns are
 * replaced by a summary before the request is sent. Cost of the ordering: one sort.
 */
public final class ContextRelayStrategy implements ComboStrategy {

    /** The strategy's name. */
    public static final String NAME = "context-relay";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void checkOptions(Map<String, Object> options) {
        RelayOptions.from(options);
    }

    @Override
    public List<ComboTargetView> order(ComboContext context, List<ComboTargetView> eligible) {
        return Orders.sorted(eligible, Orders.PRIORITY);
    }
}
