/**
 * The canonical chat model that executors translate to and from: requests (messages, tools,
 * sampling parameters), complete responses, streaming chunks and usage. Parameters the model
 * does not name are carried verbatim as raw JSON ({@code extra}), so a same-protocol executor
 * loses nothing.
 */
package dev.sluice.api.chat;
