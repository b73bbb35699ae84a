/**
 * The {@code qwen} provider (issue 36): a qwen.ai account logged in with Qwen Code's device-code
 * flow, served by the runtime's built-in OpenAI-compatible executor at the base URL the token
 * answer names ({@code resource_url}). The plugin contributes descriptions only; the host runs the
 * login and renews the tokens.
 */
package dev.sluice.plugin.qwen;
