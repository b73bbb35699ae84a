package dev.sluice.plugin.codex;

import java.util.List;

/** Responses API stream events as the ChatGPT Codex backend sends them (test data). */
final class ResponsesStreams {

    private ResponsesStreams() {
    }

    static String created(String model) {
        return "{\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_1\",\"object\":\"response\","
                + "\"status\":\"in_progress\",\"model\":\"" + model + "\",\"output\":[]}}";
    }

    static String textDelta(String delta) {
        return "{\"type\":\"response.output_text.delta\",\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":\""
                + delta + "\"}";
    }

    static String completed(String model, int in, int out) {
        return "{\"type\":\"response.completed\",\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"completed\","
                + "\"model\":\"" + model + "\",\"output\":[],\"usage\":{\"input_tokens\":" + in + ",\"input_tokens_details\":"
                + "{\"cached_tokens\":1},\"output_tokens\":" + out + ",\"output_tokens_details\":{\"reasoning_tokens\":0},"
                + "\"total_tokens\":" + (in + out) + "}}}";
    }

    /** A whole text answer: created, message item, two deltas, done events, completed. */
    static List<String> text(String model) {
        return List.of(created(model),
                "{\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\"id\":\"msg_1\",\"type\":\"message\","
                        + "\"role\":\"assistant\",\"content\":[]}}",
                textDelta("Hel"), textDelta("lo"),
                "{\"type\":\"response.output_text.done\",\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"text\":\"Hello\"}",
                completed(model, 5, 2));
    }

    /** A reasoning summary, then one function call whose arguments arrive in two pieces. */
    static List<String> toolCall(String model) {
        return List.of(created(model),
                "{\"type\":\"response.reasoning_summary_text.delta\",\"item_id\":\"rs_1\",\"output_index\":0,\"summary_index\":0,"
                        + "\"delta\":\"thinking\"}",
                "{\"type\":\"response.output_item.added\",\"output_index\":1,\"item\":{\"id\":\"fc_1\",\"type\":\"function_call\","
                        + "\"call_id\":\"call_abc\",\"name\":\"get_weather\",\"arguments\":\"\"}}",
                "{\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"fc_1\",\"output_index\":1,\"delta\":\"{\\\"city\\\":\"}",
                "{\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"fc_1\",\"output_index\":1,\"delta\":\"\\\"Paris\\\"}\"}",
                completed(model, 9, 4));
    }
}
