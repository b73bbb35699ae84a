package dev.sluice.runtime.io;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import java.io.IOException;

/**
 * What parsing a large whole answer will make of it, found before it is parsed (issue 29): how many
 * JSON tokens it holds, and whether its text decodes to characters past Latin-1. A tree costs up
 * to ~80 bytes of heap per token whatever the token's size (measured with Jackson 2.21: an empty
 * object 47 B a token, a field of a short string 79 B), so a valid 12 MiB completion of four million
 * empty objects is a 400 MiB tree; and a Java string of characters past Latin-1 takes two bytes a
 * character, so Jackson's text buffer, its builder and the string it makes are each twice the
 * answer's bytes. {@link AnswerBuffers} takes room for both before anyone parses the answer.
 *
 * <p>Costs one streaming pass that materialises nothing (string values are skipped, not decoded)
 * and one pass over the bytes, for answers over {@link AnswerBuffers#FREE_BYTES} only.
 *
 * @param tokens JSON tokens counted, stopped at the limit given to {@link #of}; those before a syntax
 *     error when the body is not JSON (its parser will then fail on it too)
 * @param wide whether a string may hold a character past U+00FF (a UTF-8 lead byte of one, or a
 *     {@code \\u} escape of one; a false positive only costs room)
 */
record AnswerShape(long tokens, boolean wide) {

    /** Plain factory: no pooled buffers are needed for one pass, and no tree is built. */
    private static final JsonFactory FACTORY = JsonFactory.builder().build();

    /**
     * @param body a whole answer
     * @param maxTokens the count past which more tokens change nothing (the answer is refused)
     * @return its shape
     */
    static AnswerShape of(byte[] body, long maxTokens) {
        return new AnswerShape(tokens(body, maxTokens), wide(body));
    }

    private static long tokens(byte[] body, long maxTokens) {
        try (JsonParser p = FACTORY.createParser(body)) {
            return count(p, maxTokens);
        } catch (IOException e) {
            return 0;
        }
    }

    /**
     * JSON tokens in a text (a stream event's data), up to a limit; one streaming pass (a long text
     * is read through a reader, not copied).
     *
     * @param text the text
     * @param maxTokens the count past which more change nothing
     * @return the tokens counted, at most {@code maxTokens}
     */
    static long tokens(String text, long maxTokens) {
        try (JsonParser p = FACTORY.createParser(text)) {
            return count(p, maxTokens);
        } catch (IOException e) {
            return 0;
        }
    }

    private static long count(JsonParser p, long maxTokens) {
        long n = 0;
        try {
            while (n < maxTokens && p.nextToken() != null) {
                n++;
            }
        } catch (IOException e) {
            // not JSON past here (or too deep): the tokens so far; parsing it fails alike
        }
        return n;
    }

    private static boolean wide(byte[] body) {
        for (int i = 0; i < body.length; i++) {
            int b = body[i] & 0xff;
            if (b >= 0xc4) {
                // the lead byte of U+0100 and above (0xc2, 0xc3 lead Latin-1's upper half)
                return true;
            }
            if (b == '\\' && i + 3 < body.length && body[i + 1] == 'u' && (body[i + 2] != '0' || body[i + 3] != '0')) {
                return true;
            }
        }
        return false;
    }
}
