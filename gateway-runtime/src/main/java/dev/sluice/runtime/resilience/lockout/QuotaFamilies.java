package dev.sluice.runtime.resilience.lockout;

import dev.sluice.api.rules.QuotaFamily;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The quota families providers declare through the SPI (SPEC ML-1), looked up by provider and model. */
public final class QuotaFamilies {

    private final Map<String, List<QuotaFamily>> byProvider;

    /**
     * Creates the lookup.
     *
     * @param families every declared family
     */
    public QuotaFamilies(List<QuotaFamily> families) {
        Map<String, List<QuotaFamily>> m = new HashMap<>();
        for (QuotaFamily f : families) {
            m.computeIfAbsent(f.provider(), k -> new ArrayList<>()).add(f);
        }
        m.replaceAll((k, v) -> List.copyOf(v));
        byProvider = Map.copyOf(m);
    }

    /**
     * The family of a model.
     *
     * @param provider the provider id
     * @param model the upstream model id
     * @return the family name, or null when the model is in none
     */
    public String familyOf(String provider, String model) {
        List<QuotaFamily> fs = byProvider.get(provider);
        if (fs == null) {
            return null;
        }
        for (QuotaFamily f : fs) {
            if (f.matches(model)) {
                return f.name();
            }
        }
        return null;
    }
}
