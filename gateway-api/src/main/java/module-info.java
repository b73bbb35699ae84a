/**
 * The Sluice provider-plugin SPI (version {@link dev.sluice.api.ProviderPlugin#SPI_VERSION}).
 *
 * <p>A plugin is a named module that {@code requires sluice.api} and
 * {@code provides dev.sluice.api.ProviderPlugin with ...}. The module depends on nothing outside
 * the JDK, so plugins compile against this one JAR.
 */
module sluice.api {
    exports dev.sluice.api;
    exports dev.sluice.api.chat;
    exports dev.sluice.api.upstream;
    exports dev.sluice.api.rules;
    exports dev.sluice.api.combo;
    exports dev.sluice.api.oauth;
}
