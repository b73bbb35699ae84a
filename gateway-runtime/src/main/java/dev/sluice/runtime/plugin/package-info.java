/**
 * Loads provider plugins (SPEC SH-2, PA-3) and keeps what they contribute. Every JAR directly in
 * {@code plugins/} and every folder {@code plugins/<name>/} (a plugin JAR plus its private
 * dependencies) gets its own module layer on top of the boot layer, so that two plugins may bundle
 * different versions of the same library without either seeing the other's copy. Sources are
 * processed in file-name order, never directory-listing order, so that which of two conflicting
 * plugins wins does not depend on the file system. A broken, incompatible or conflicting source is
 * logged by name with its reason and skipped, and the server starts without it; the {@code strict}
 * mode used by CI turns any such failure into a start-up error instead. The resulting
 * {@link dev.sluice.runtime.plugin.PluginRegistry} is immutable, because plugin contributions are
 * read exactly once, at start-up.
 */
package dev.sluice.runtime.plugin;
