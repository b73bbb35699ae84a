/**
 * The pipeline's entry point ({@link dev.sluice.runtime.entry.RequestRouter}): the operators'
 * aliases, a key's allowed models, then the decision between a combo (handed to
 * {@code combo.flow}) and a plain model (resolved, and walked by routing). It sits above both, so
 * a request's walk goes down through entry → combo → routing (or entry → routing) and never
 * back up into a room it left.
 */
package dev.sluice.runtime.entry;
