/**
 * Subscription-account login (issue 36): the host side of {@link dev.sluice.api.oauth.OAuthLogin}.
 * {@link dev.sluice.runtime.oauth.LoginFlows} runs PKCE and device-code flows on the injected
 * clock and keeps them in memory only (they expire and are forgotten);
 * {@link dev.sluice.runtime.oauth.TokenEndpoint} speaks to authorization servers;
 * {@link dev.sluice.runtime.oauth.AccountConnections} turns a login into a connection. Nothing here
 * runs on the request path.
 */
package dev.sluice.runtime.oauth;
