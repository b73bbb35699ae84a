package dev.sluice.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CommandLineTest {

    private static Command parse(String... args) {
        return CommandLine.parse(List.of(args));
    }

    @Test
    void noArgumentsAndServeStartTheServer() {
        assertThat(parse()).isEqualTo(new Command.Serve());
        assertThat(parse("serve")).isEqualTo(new Command.Serve());
    }

    @Test
    void helpInAnyFormIsHelp() {
        assertThat(parse("help")).isEqualTo(new Command.Help());
        assertThat(parse("--help")).isEqualTo(new Command.Help());
        assertThat(parse("-h")).isEqualTo(new Command.Help());
        assertThat(parse("providers", "list", "--help")).isEqualTo(new Command.Help());
    }

    @Test
    void everyDocumentedCommandParses() {
        assertThat(parse("doctor")).isEqualTo(new Command.Doctor());
        assertThat(parse("providers", "list")).isEqualTo(new Command.ProvidersList());
        assertThat(parse("keys", "create", "--name", "laptop")).isEqualTo(new Command.KeysCreate("laptop"));
        assertThat(parse("keys", "create", "--name=ci runner")).isEqualTo(new Command.KeysCreate("ci runner"));
        assertThat(parse("connections", "reactivate", "c1", "c2")).isEqualTo(new Command.ConnectionsReactivate(List.of("c1", "c2")));
        assertThat(parse("connections", "reactivate")).isInstanceOf(Command.Invalid.class);
        assertThat(parse("connections", "reactivate", "--all")).isInstanceOf(Command.Invalid.class);
        assertThat(parse("cooldowns", "list")).isEqualTo(new Command.CooldownsList());
        assertThat(parse("cooldowns", "clear")).isEqualTo(new Command.CooldownsClear(List.of()));
        assertThat(parse("cooldowns", "clear", "c1", "c2")).isEqualTo(new Command.CooldownsClear(List.of("c1", "c2")));
        assertThat(parse("breakers", "reset")).isEqualTo(new Command.BreakersReset(Optional.empty()));
        assertThat(parse("breakers", "reset", "glm")).isEqualTo(new Command.BreakersReset(Optional.of("glm")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"stop", "start", "serve now", "doctor --fix", "providers", "providers delete", "providers list extra",
            "keys", "keys create", "keys create --name", "keys create --name  ", "keys create --name a --name b",
            "keys create --scope admin", "keys list", "cooldowns", "cooldowns list x", "cooldowns clear --all", "cooldowns reset",
            "breakers", "breakers list", "breakers reset glm openai", "breakers reset --all", "--version", "SERVE"})
    void anythingElseIsInvalidAndNeverServes(String line) {
        Command command = CommandLine.parse(List.of(line.split(" ", -1)));
        assertThat(command).as(line).isInstanceOf(Command.Invalid.class);
    }

    @Test
    void invalidCommandsSayWhatWasWrong() {
        assertThat(parse("stop")).isEqualTo(new Command.Invalid("unknown command: stop"));
        assertThat(parse("keys", "create")).isEqualTo(new Command.Invalid("keys create needs --name NAME"));
        assertThat(parse("providers")).isEqualTo(new Command.Invalid("providers needs a subcommand: list"));
        assertThat(((Command.Invalid) parse("serve", "--port", "1")).problem()).isEqualTo("serve takes no further arguments, got: --port 1");
    }

    @Test
    void usageNamesEveryCommandAndTheEnvironment() {
        assertThat(CommandLine.USAGE).startsWith("Usage: bin/sluice")
                .contains("serve", "doctor", "providers list", "keys create --name NAME", "cooldowns list", "cooldowns clear [ID...]", "connections reactivate ID...",
                        "breakers reset [PROVIDER]", "SLUICE_URL", "SLUICE_ADMIN_KEY", "http://127.0.0.1:20128");
    }
}
