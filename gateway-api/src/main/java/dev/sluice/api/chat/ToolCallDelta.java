package dev.sluice.api.chat;

/**
 * A piece of a tool call in a stream. The first piece of a call carries its id and name; later
 * pieces append to its arguments.
 *
 * @param index which tool call of the message
 * @param id call id, or null on continuation pieces
 * @param name function name, or null on continuation pieces
 * @param argumentsDelta the next piece of the arguments JSON text, possibly empty
 */
public record ToolCallDelta(int index, String id, String name, String argumentsDelta) {
}
