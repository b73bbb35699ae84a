package dev.sluice.runtime.store;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Removes a connection's own secrets from upstream text before it reaches a client, a log line or
 * the stored {@code lastError} (SEC-2): an upstream that echoes the key it was sent ("Incorrect API
 * key provided: sk-…") must not leak it. Upstreams echo secrets in other shapes than they were
 * sent, so each secret is also looked for in any letter case, URL-encoded (form and percent
 * encoding, hex digits in either case), and — for the {@code user:password} of a proxy or base
 * URL and for the API key — as the Base64 of an HTTP Basic credential.
 */
public final class Secrets {

    /** Shorter secrets are not masked: "****" in place of every "ab" would destroy the text. */
    private static final int MIN_SECRET_LENGTH = 4;

    private Secrets() {
    }

    /**
     * Replaces the connection's API key, OAuth tokens and URL passwords (in their echoed forms)
     * in a text with {@code ****}.
     *
     * @param text the text, or null
     * @param c the connection, or null
     * @return the scrubbed text
     */
    public static String scrub(String text, Connection c) {
        if (text == null || c == null || text.isEmpty()) {
            return text;
        }
        Set<String> anyCase = new LinkedHashSet<>();
        Set<String> exact = new LinkedHashSet<>();
        addSecret(anyCase, exact, c.apiKey());
        if (c.apiKey() != null && c.apiKey().length() >= MIN_SECRET_LENGTH) {
            // Basic auth with the key as user name (password empty) or as password (user empty)
            addBase64(exact, c.apiKey() + ":");
            addBase64(exact, ":" + c.apiKey());
        }
        if (c.oauth() != null) {
            addSecret(anyCase, exact, c.oauth().accessToken());
            addSecret(anyCase, exact, c.oauth().refreshToken());
        }
        for (String url : new String[] {c.proxyUrl(), c.baseUrl()}) {
            String userInfo = userInfo(url);
            String password = password(userInfo);
            if (password == null) {
                continue;
            }
            addSecret(anyCase, exact, password);
            addSecret(anyCase, exact, decode(password));
            // Proxy-Authorization: Basic base64(user:password), of the decoded and of the raw user info
            int colon = userInfo.indexOf(':');
            addBase64(exact, decode(userInfo.substring(0, colon)) + ":" + decode(password));
            addBase64(exact, userInfo);
        }
        String out = text;
        if (!exact.isEmpty()) {
            for (String s : longestFirst(exact)) {
                out = out.replace(s, "****");
            }
        }
        if (!anyCase.isEmpty()) {
            StringBuilder alternation = new StringBuilder();
            for (String s : longestFirst(anyCase)) {
                alternation.append(alternation.isEmpty() ? "" : "|").append(Pattern.quote(s));
            }
            out = Pattern.compile(alternation.toString(), Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE)
                    .matcher(out).replaceAll(Matcher.quoteReplacement("****"));
        }
        return out;
    }

    /** The password of an {@code http://user:password@host:port} proxy URL, or null. */
    static String proxyPassword(String proxyUrl) {
        return password(userInfo(proxyUrl));
    }

    /** The raw {@code user:password} part of a URL, or null. */
    private static String userInfo(String url) {
        if (url == null) {
            return null;
        }
        int scheme = url.indexOf("://");
        int at = url.lastIndexOf('@');
        if (scheme < 0 || at <= scheme) {
            return null;
        }
        return url.substring(scheme + 3, at);
    }

    private static String password(String userInfo) {
        if (userInfo == null) {
            return null;
        }
        int colon = userInfo.indexOf(':');
        return colon < 0 ? null : userInfo.substring(colon + 1);
    }

    /** A secret as sent, and as upstreams echo it URL-encoded; case is ignored when matching. */
    private static void addSecret(Set<String> anyCase, Set<String> exact, String secret) {
        if (secret == null || secret.length() < MIN_SECRET_LENGTH) {
            return;
        }
        anyCase.add(secret);
        String form = URLEncoder.encode(secret, StandardCharsets.UTF_8);
        anyCase.add(form);
        anyCase.add(form.replace("+", "%20"));
        // percent-encoding of every reserved character, '~' included (what some clients do)
        anyCase.add(form.replace("+", "%20").replace("~", "%7E").replace("*", "%2A"));
        addBase64(exact, secret);
    }

    private static void addBase64(Set<String> exact, String value) {
        if (value.length() < MIN_SECRET_LENGTH) {
            return;
        }
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        String b64 = Base64.getEncoder().encodeToString(bytes);
        exact.add(b64);
        exact.add(stripPadding(b64));
        exact.add(stripPadding(Base64.getUrlEncoder().encodeToString(bytes)));
    }

    private static String stripPadding(String b64) {
        int end = b64.length();
        while (end > 0 && b64.charAt(end - 1) == '=') {
            end--;
        }
        return b64.substring(0, end);
    }

    private static String decode(String s) {
        try {
            return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return s;
        }
    }

    private static List<String> longestFirst(Set<String> forms) {
        List<String> out = new ArrayList<>(forms);
        out.removeIf(s -> s.length() < MIN_SECRET_LENGTH);
        out.sort(Comparator.comparingInt(String::length).reversed().thenComparing(s -> s.toLowerCase(Locale.ROOT)));
        return out;
    }
}
