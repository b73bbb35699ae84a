package dev.sluice.runtime.plugin;

import dev.sluice.api.ProviderDescriptor;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The provider ids a refused plugin is taken to claim when none could be read from it (issue 27):
 * a JAR that provides no plugin, bundles the SPI, or throws from {@code providers()} still names
 * its provider in its file or module name ({@code zenith-1.2.0.jar}, {@code com.example.zenith}).
 * Claiming those names keeps their connections from being served by the generic
 * OpenAI-compatible route while the plugin is refused; claiming a name nobody uses costs nothing.
 */
final class NameClaims {

    /** A trailing version: {@code -1.2.0}, {@code _2}, {@code -1.0.0-SNAPSHOT}, {@code -v3}. */
    private static final Pattern VERSION = Pattern.compile("[-_]v?\\d+([.-][0-9A-Za-z]+)*$");
    /** Words that say "this is a Sluice plugin" rather than which provider it serves. */
    private static final List<String> AFFIXES = List.of("sluice-plugin", "plugin", "sluice", "provider");

    private NameClaims() {
    }

    /**
     * The ids claimed for a refused source.
     *
     * @param source the JAR file or folder name in {@code plugins/}
     * @param modules module names read from the source before it was refused (may be empty)
     * @param builtins provider ids the runtime serves itself, never claimed by a guess
     * @return valid provider ids, sorted
     */
    static Set<String> guess(String source, Collection<String> modules, Set<String> builtins) {
        Set<String> ids = new TreeSet<>();
        String stem = source.toLowerCase(Locale.ROOT);
        if (stem.endsWith(".jar")) {
            stem = stem.substring(0, stem.length() - 4);
        }
        stem = VERSION.matcher(stem).replaceFirst("");
        ids.add(stem);
        ids.add(withoutAffixes(stem));
        for (String module : modules) {
            String[] parts = module.toLowerCase(Locale.ROOT).split("\\.");
            // the last part that is not a word like "plugin": com.example.zenith.plugin -> zenith
            for (int i = parts.length - 1; i >= 0; i--) {
                if (!AFFIXES.contains(parts[i])) {
                    ids.add(parts[i]);
                    break;
                }
            }
        }
        ids.removeIf(id -> id.isEmpty() || !ProviderDescriptor.isValidId(id) || builtins.contains(id));
        return ids;
    }

    private static String withoutAffixes(String stem) {
        String out = stem;
        for (String affix : AFFIXES) {
            if (out.startsWith(affix + "-")) {
                out = out.substring(affix.length() + 1);
            }
            if (out.endsWith("-" + affix)) {
                out = out.substring(0, out.length() - affix.length() - 1);
            }
        }
        return out;
    }
}
