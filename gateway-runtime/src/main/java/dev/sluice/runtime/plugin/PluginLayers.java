package dev.sluice.runtime.plugin;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.ProviderPlugin;
import java.io.IOException;
import java.lang.module.Configuration;
import java.lang.module.FindException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.lang.module.ResolutionException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.zip.ZipFile;

/**
 * Turns one {@link PluginSource} into its own module layer on top of the parent layer. The checks
 * before resolution exist because the JDK's own errors for these cases are either missing (a
 * bundled SPI copy resolves fine and then silently provides nothing the runtime can see) or name
 * a module rather than the file the operator has to fix.
 */
final class PluginLayers {

    static final String SPI_MODULE = "sluice.api";
    private static final String SPI_SERVICE = ProviderPlugin.class.getName();
    private static final String PROVIDED_HINT = "; mark sluice-api as provided (Maven scope 'provided') so that the plugin uses the runtime's copy";

    private final ModuleLayer parent;
    private final ClassLoader parentLoader;
    private final Set<String> spiPackages;

    PluginLayers(ModuleLayer parent, ClassLoader parentLoader) {
        this.parent = requireNonNull(parent, "parent is null");
        this.parentLoader = parentLoader;
        this.spiPackages = ProviderPlugin.class.getModule().getPackages();
    }

    /**
     * Defines the layer of one source.
     *
     * @param source the source
     * @return a layer whose only parent is the parent layer
     * @throws PluginRefusedException when the source cannot become a plugin layer
     */
    ModuleLayer define(PluginSource source) throws PluginRefusedException {
        List<Path> jars;
        try {
            jars = source.jars();
        } catch (IOException e) {
            throw new PluginRefusedException("folder cannot be listed (" + e + ")", e);
        }
        if (jars.isEmpty()) {
            throw new PluginRefusedException("folder contains no JAR");
        }
        Map<String, Path> moduleJars = new LinkedHashMap<>();
        List<ModuleDescriptor> descriptors = new ArrayList<>();
        for (Path jar : jars) {
            ModuleDescriptor descriptor = inspect(source, jar);
            Path previous = moduleJars.putIfAbsent(descriptor.name(), jar);
            if (previous != null) {
                throw new PluginRefusedException(source.describe(previous) + " and " + source.describe(jar)
                        + " both contain module '" + descriptor.name() + "'");
            }
            descriptors.add(descriptor);
        }
        if (descriptors.stream().noneMatch(PluginLayers::providesPlugin)) {
            throw new PluginRefusedException("provides no " + SPI_SERVICE + ": no "
                    + (source.folder() ? "explicit module in the folder" : "module") + " declares 'provides " + SPI_SERVICE
                    + " with ...' in its module-info.java (a META-INF/services file alone is ignored for named modules)")
                    .inModules(descriptors.stream().filter(d -> !d.isAutomatic()).map(ModuleDescriptor::name).toList());
        }
        return defineLayer(moduleJars);
    }

    /** Checks one JAR on its own, so that the message can name that JAR. */
    private ModuleDescriptor inspect(PluginSource source, Path jar) throws PluginRefusedException {
        String label = source.describe(jar);
        boolean explicit;
        Set<String> shaded = new TreeSet<>();
        try (JarFile file = new JarFile(jar.toFile(), true, ZipFile.OPEN_READ, Runtime.version())) {
            explicit = file.getEntry("module-info.class") != null;
            // issue 27: a module-info written by the jar tool lists its packages, and a shaded SPI
            // copy is then left out of the module rather than refused; the entries tell the truth
            file.stream().map(e -> e.getName()).filter(n -> n.endsWith(".class") && n.lastIndexOf('/') > 0)
                    .map(n -> n.substring(0, n.lastIndexOf('/')).replace('/', '.')).filter(spiPackages::contains).forEach(shaded::add);
        } catch (IOException | SecurityException e) {
            throw new PluginRefusedException(label + " is not a readable JAR (" + e.getMessage() + ")", e);
        }
        // Inside a folder, private dependencies may be plain JARs (automatic modules), but the
        // plugin JAR itself must be explicit: only an explicit module has a 'provides' line the
        // runtime can trust, and a lone automatic module would read every module in the boot layer.
        if (!explicit && !source.folder()) {
            throw new PluginRefusedException(label + " is not an explicit module: it has no module-info.class, so Java would"
                    + " load it as an automatic module; a plugin JAR needs a module-info.java with 'provides "
                    + SPI_SERVICE + " with ...'");
        }
        ModuleReference reference;
        try {
            reference = ModuleFinder.of(jar).findAll().iterator().next();
        } catch (FindException e) {
            throw new PluginRefusedException(label + " cannot be read as a module (" + rootMessage(e) + ")", e);
        }
        ModuleDescriptor descriptor = reference.descriptor();
        if (descriptor.name().equals(SPI_MODULE)) {
            throw new PluginRefusedException("bundles its own copy of the SPI module " + SPI_MODULE + " (" + label + ")" + PROVIDED_HINT);
        }
        Set<String> declared = new TreeSet<>(descriptor.packages());
        declared.retainAll(spiPackages);
        shaded.addAll(declared);
        if (!shaded.isEmpty()) {
            throw new PluginRefusedException("bundles its own copy of the SPI module " + SPI_MODULE + " (module '" + descriptor.name()
                    + "' in " + label + " contains its packages " + shaded + ")" + PROVIDED_HINT).inModules(List.of(descriptor.name()));
        }
        return descriptor;
    }

    private ModuleLayer defineLayer(Map<String, Path> moduleJars) throws PluginRefusedException {
        ModuleFinder finder = ModuleFinder.of(moduleJars.values().toArray(Path[]::new));
        Configuration configuration;
        try {
            configuration = parent.configuration().resolveAndBind(finder, ModuleFinder.of(), moduleJars.keySet());
        } catch (FindException | ResolutionException e) {
            throw new PluginRefusedException("cannot be resolved (" + rootMessage(e) + ")", e);
        }
        try {
            return ModuleLayer.defineModulesWithOneLoader(configuration, List.of(parent), parentLoader).layer();
        } catch (LayerInstantiationException | SecurityException e) {
            throw new PluginRefusedException("cannot be defined as a module layer (" + rootMessage(e) + ")", e);
        }
    }

    private static boolean providesPlugin(ModuleDescriptor descriptor) {
        return !descriptor.isAutomatic() && descriptor.provides().stream().anyMatch(p -> p.service().equals(SPI_SERVICE));
    }

    /** The JDK wraps the useful message (e.g. the zip error) one or two causes deep. */
    static String rootMessage(Throwable t) {
        StringBuilder message = new StringBuilder(String.valueOf(t.getMessage()));
        Throwable cause = t.getCause();
        for (int depth = 0; cause != null && depth < 5; depth++, cause = cause.getCause()) {
            String m = cause.getMessage();
            if (m != null && message.indexOf(m) < 0) {
                message.append(": ").append(m);
            }
        }
        return message.toString();
    }
}
