/**
 * Routing: which provider a model string names ({@link dev.sluice.runtime.routing.ModelResolver}),
 * which connections may serve it and in what order
 * ({@link dev.sluice.runtime.routing.ConnectionSelector}), and the attempt loop that tries them
 * and acts on each failure's verdict ({@link dev.sluice.runtime.routing.Dispatcher}). Plain Java:
 * no HTTP-layer types.
 */
package dev.sluice.runtime.routing;
