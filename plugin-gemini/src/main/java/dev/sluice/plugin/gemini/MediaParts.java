package dev.sluice.plugin.gemini;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** Media for Gemini: a data URL becomes {@code inlineData}, any other URL {@code fileData}, with the MIME type found. */
final class MediaParts {

    private MediaParts() {
    }

    /** A part from a URL: a data URL becomes inline data, anything else a file reference Gemini fetches. */
    static Map<String, Object> part(String url, String mimeHint) {
        Map<String, Object> part = new LinkedHashMap<>();
        if (url.regionMatches(true, 0, "data:", 0, 5)) {
            DataUrl d = DataUrl.parse(url);
            Map<String, Object> inline = new LinkedHashMap<>();
            String mime = d.mimeType() != null ? d.mimeType() : mimeHint != null ? mimeHint : sniff(d.base64());
            inline.put("mimeType", mime);
            inline.put("data", d.base64());
            part.put("inlineData", inline);
        } else {
            Map<String, Object> file = new LinkedHashMap<>();
            String mime = mimeHint != null ? mimeHint : mimeFromExtension(url);
            if (mime != null) {
                file.put("mimeType", mime);
            }
            file.put("fileUri", url);
            part.put("fileData", file);
        }
        return part;
    }

    /** A parsed {@code data:} URL with its payload as base64. */
    private record DataUrl(String mimeType, String base64) {

        static DataUrl parse(String url) {
            int comma = url.indexOf(',');
            if (comma < 0) {
                return new DataUrl(null, "");
            }
            String meta = url.substring(5, comma);
            String payload = url.substring(comma + 1);
            String[] params = meta.split(";");
            String mime = params.length > 0 && params[0].contains("/") ? params[0].strip().toLowerCase(Locale.ROOT) : null;
            boolean base64 = false;
            for (int i = 1; i < params.length; i++) {
                base64 |= params[i].strip().equalsIgnoreCase("base64");
            }
            if (base64) {
                return new DataUrl(mime, payload.strip());
            }
            // a percent-encoded data URL: Gemini wants base64
            byte[] bytes = URLDecoder.decode(payload.replace("+", "%2B"), StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8);
            return new DataUrl(mime, Base64.getEncoder().encodeToString(bytes));
        }
    }

    /** The image type from the first bytes of base64 data (a data URL without a media type). */
    private static String sniff(String base64) {
        if (base64.startsWith("iVBORw0KGgo")) {
            return "image/png";
        }
        if (base64.startsWith("/9j/")) {
            return "image/jpeg";
        }
        if (base64.startsWith("R0lGOD")) {
            return "image/gif";
        }
        if (base64.startsWith("UklGR")) {
            return "image/webp";
        }
        if (base64.startsWith("JVBERi0")) {
            return "application/pdf";
        }
        return "application/octet-stream";
    }

    private static String mimeFromExtension(String url) {
        String path = url;
        int cut = path.indexOf('?');
        if (cut >= 0) {
            path = path.substring(0, cut);
        }
        cut = path.indexOf('#');
        if (cut >= 0) {
            path = path.substring(0, cut);
        }
        path = path.toLowerCase(Locale.ROOT);
        if (path.endsWith(".png")) {
            return "image/png";
        }
        if (path.endsWith(".jpg") || path.endsWith(".jpeg")) {
            return "image/jpeg";
        }
        if (path.endsWith(".webp")) {
            return "image/webp";
        }
        if (path.endsWith(".gif")) {
            return "image/gif";
        }
        if (path.endsWith(".heic")) {
            return "image/heic";
        }
        if (path.endsWith(".heif")) {
            return "image/heif";
        }
        if (path.endsWith(".pdf")) {
            return "application/pdf";
        }
        return null;
    }
}
