/**
 * Subscription-account login (issue 36): a provider plugin describes its OAuth login with an
 * {@link dev.sluice.api.oauth.OAuthLogin} and the host runs the flows (PKCE authorization code,
 * device code), exchanges the code, stores the tokens encrypted and refreshes them. A plugin
 * contributes a description and nothing else; it never sees a verifier, a {@code state} or an
 * HTTP request of the login. Everything here is {@link dev.sluice.api.Experimental}.
 */
package dev.sluice.api.oauth;
