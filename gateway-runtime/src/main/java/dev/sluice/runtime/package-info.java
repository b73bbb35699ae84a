/**
 * The Sluice runtime: {@link dev.sluice.runtime.Main} (wiring only) and
 * {@link dev.sluice.runtime.SluiceServer}, which assembles storage, plugins, routing and the web
 * server. Behaviour lives in the sub-packages: {@code http} (endpoints), {@code routing},
 * {@code resilience}, {@code openai} (protocol + built-in executor), {@code upstream} (the HTTP
 * client), {@code plugin}, {@code store}, {@code security}, {@code config}.
 */
package dev.sluice.runtime;
