/**
 * The model catalog (issue 34): per {@code provider/model}, its context window, output limit,
 * prices and tier, merged from what providers' descriptors declare, the config file's
 * {@code models:} section, the {@code modelPrices} setting and the operators' overrides
 * ({@code PUT /api/models/{provider/model}}), each figure with where it came from. Combo strategies
 * read it through their target views; {@code GET /api/usage} prices tokens with it.
 */
package dev.sluice.runtime.catalog;
