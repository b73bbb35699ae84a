package dev.sluice.plugin.gemini;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Where generated ids come from: answer ids when Gemini sends no {@code responseId}, and tool-call
 * ids (Gemini's function calls carry none). Tests use a counting source for golden output.
 */
interface Ids {

    /**
     * A new answer id.
     *
     * @return the id
     */
    String responseId();

    /**
     * A new tool-call id. Ids must be unique across a conversation, not only within one answer:
     * clients key tool results by id, and the next request finds a function's name by the id of
     * the call it answers.
     *
     * @return the id
     */
    String toolCallId();

    /**
     * Random ids ({@code chatcmpl-…}, {@code call_…}) from the thread's random generator.
     *
     * @return the id source
     */
    static Ids random() {
        return new Ids() {
            @Override
            public String responseId() {
                return "chatcmpl-" + token(24);
            }

            @Override
            public String toolCallId() {
                return "call_" + token(24);
            }
        };
    }

    private static String token(int length) {
        String alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        ThreadLocalRandom r = ThreadLocalRandom.current();
        StringBuilder sb = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            sb.append(alphabet.charAt(r.nextInt(alphabet.length())));
        }
        return sb.toString();
    }
}
