/**
 * Client protocols (issue 35 §2): the {@link dev.sluice.runtime.protocol.ClientProtocol} contract and
 * one package per protocol below it — OpenAI chat completions, Anthropic Messages, OpenAI Responses.
 * The http layer's one protocol handler runs every one of them.
 */
package dev.sluice.runtime.protocol;
