/**
 * Wire code shared by Sluice and its plugins, the way Trino plugins bundle trino-plugin-toolkit: a
 * strict JSON reader/writer ({@code dev.sluice.toolkit.json}) and bounded server-sent-event framing
 * ({@code dev.sluice.toolkit.sse}). JDK only. A plugin bundles its own copy in its folder in
 * {@code plugins/}, so it never depends on the runtime's version.
 */
module sluice.toolkit {
    exports dev.sluice.toolkit.json;
    exports dev.sluice.toolkit.sse;
}
