/**
 * The {@code codex} provider (issue 36): a ChatGPT account logged in the way Codex CLI does it
 * (PKCE against {@code auth.openai.com} with Codex CLI's public client), served by the ChatGPT
 * Codex Responses backend ({@code POST {base}/responses}). {@code /v1/responses} requests are
 * passed through the runtime's built-in Responses executor with the account headers added; chat
 * and messages requests are translated here to a Responses request and its event stream back to
 * canonical chunks, because the backend serves nothing but {@code /responses}. The host runs the
 * login and renews the tokens; the plugin describes the login and reads the account out of the
 * tokens' JWT claims.
 */
package dev.sluice.plugin.codex;
