package dev.sluice.runtime.combo.strategy;

import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.api.combo.ComboTargetView;
import java.util.List;

/**
 * {@code quota-share}: for targets that are accounts sharing one quota, the account with the
 * fewest requests in flight first, then the fewest sent so far (each account takes its turn), then
 * list order. Requests the combo sends take turns on each account with a {@code maxConcurrent}, and
 * never fail for want of a turn (SPEC QC-3; the router applies that part).
 */
public final class QuotaShareStrategy implements ComboStrategy {

    /** The strategy's name. */
    public static final String NAME = "quota-share";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<ComboTargetView> order(ComboContext context, List<ComboTargetView> eligible) {
        return Orders.sorted(eligible, Orders.LOAD);
    }
}
