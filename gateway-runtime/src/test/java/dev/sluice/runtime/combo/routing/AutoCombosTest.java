package dev.sluice.runtime.combo.routing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.combo.Combo;
import dev.sluice.runtime.combo.ComboTarget;
import dev.sluice.runtime.routing.Caller;
import dev.sluice.runtime.routing.ClientLiveness;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The virtual {@code auto} combos (issue 34): the caller's models, a preset per name, off with {@code combos.autoCombos: false}. */
class AutoCombosTest {

    private final Caller caller = Caller.of("k1", false, java.util.Set.of(), ClientLiveness.ALWAYS);
    private final AtomicBoolean on = new AtomicBoolean(true);

    @Test
    void eachNameIsTheAutoStrategyWithItsPresetOverTheCallersModels_issue34() {
        AutoCombos auto = new AutoCombos(on::get, c -> List.of("openai/gpt-4o", "acme/m"));
        Combo cheap = auto.find("auto/cheap", caller).orElseThrow();
        assertThat(cheap.strategy()).isEqualTo("auto");
        assertThat(cheap.strategyOptions()).containsEntry("preset", "cheap");
        assertThat(cheap.targets()).extracting(ComboTarget::model).containsExactly("openai/gpt-4o", "acme/m");
        assertThat(AutoCombos.isVirtual(cheap)).isTrue();
        assertThat(auto.find("auto", caller).orElseThrow().strategyOptions()).containsEntry("preset", "balanced");
        assertThat(auto.find("auto/turbo", caller)).isEmpty();
        assertThat(auto.find("openai/gpt-4o", caller)).isEmpty();
    }

    @Test
    void theyAreOffWhenTurnedOffOrWhenTheCallerMayUseNoModel_issue34() {
        on.set(false);
        assertThat(new AutoCombos(on::get, c -> List.of("acme/m")).find("auto", caller)).isEmpty();
        on.set(true);
        assertThat(new AutoCombos(on::get, c -> List.of()).find("auto", caller)).isEmpty();
        assertThat(AutoCombos.NONE.find("auto", caller)).isEmpty();
    }

    @Test
    void theySpanAtMostAHundredModels_issue34() {
        List<String> many = IntStream.range(0, 150).mapToObj(i -> "acme/m" + i).toList();
        assertThat(new AutoCombos(on::get, c -> many).find("auto/fast", caller).orElseThrow().targets()).hasSize(AutoCombos.MAX_TARGETS);
    }

    @Test
    void everyVirtualNameMayNameACombo_andAProviderModelNameNever_issue35() {
        // the entry point skips the combos for a name that cannot denote one: every virtual name must still reach them
        for (String name : AutoCombos.NAMES.keySet()) {
            assertThat(Combo.mayName(name)).as(name).isTrue();
        }
        assertThat(Combo.mayName("my-combo")).isTrue();
        assertThat(Combo.mayName("openai/gpt-4o")).isFalse();
        assertThat(Combo.mayName("bench/m")).isFalse();
        assertThat(Combo.mayName(null)).isFalse();
    }
}
