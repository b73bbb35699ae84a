package dev.sluice.runtime.anthropic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.ChatResponse;
import dev.sluice.api.chat.Choice;
import dev.sluice.api.chat.ContentPart;
import dev.sluice.api.chat.Role;
import dev.sluice.api.chat.ToolCall;
import dev.sluice.api.chat.ToolDefinition;
import dev.sluice.api.chat.Usage;
import dev.sluice.runtime.openai.InvalidRequestException;
import dev.sluice.runtime.openai.OpenAiCodec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Anthropic Messages JSON ⇄ canonical model (SPEC API-3, API-6). */
class AnthropicCodecTest {

    private final AnthropicCodec codec = new AnthropicCodec();
    private final ObjectMapper mapper = new ObjectMapper();

    /** Single quotes stand for double quotes, to keep JSON literals readable. */
    private static byte[] json(String singleQuoted) {
        return singleQuoted.replace('\'', '"').getBytes(StandardCharsets.UTF_8);
    }

    private ChatRequest read(String singleQuoted) {
        return codec.readMessagesRequest(json(singleQuoted));
    }

    private InvalidRequestException invalid(String singleQuoted) {
        byte[] body = json(singleQuoted);
        InvalidRequestException e = catchThrowableOfType(InvalidRequestException.class, () -> codec.readMessagesRequest(body));
        assertThat(e).as("expected an InvalidRequestException").isNotNull();
        return e;
    }

    private JsonNode tree(byte[] bytes) throws IOException {
        return mapper.readTree(bytes);
    }

    private JsonNode tree(String singleQuoted) throws IOException {
        return mapper.readTree(json(singleQuoted));
    }

    private static final String HEAD = "'model':'mockai/gpt-x','max_tokens':256,";
    private static final String USER_HI = "'messages':[{'role':'user','content':'hi'}]";

    // ------------------------------------------------------------------ requests

    @Test
    void minimalRequestParses_API3() {
        ChatRequest r = read("{" + HEAD + USER_HI + "}");

        assertThat(r.model()).isEqualTo("mockai/gpt-x");
        assertThat(r.maxTokens()).isEqualTo(256);
        assertThat(r.messages()).containsExactly(ChatMessage.text(Role.USER, "hi"));
        assertThat(r.tools()).isEmpty();
        assertThat(r.toolChoiceJson()).isNull();
        assertThat(r.stream()).isFalse();
        assertThat(r.stop()).isEmpty();
        assertThat(r.extra()).isEmpty();
    }

    @Test
    void fullConversationTranslatesToTheCanonicalModelAndOnToOpenAi_API3() throws IOException {
        ChatRequest r = read("{" + HEAD + "'stream':true,'temperature':0.5,'top_p':0.9,'top_k':40,"
                + "'stop_sequences':['END'],'metadata':{'user_id':'u-1'},'thinking':{'type':'enabled','budget_tokens':1024},"
                + "'service_tier':'auto',"
                + "'system':[{'type':'text','text':'Be brief.','cache_control':{'type':'ephemeral'}},{'type':'text','text':'Use tools.'}],"
                + "'tools':[{'name':'get_weather','description':'Weather','input_schema':{'type':'object','properties':{'city':{'type':'string'}}}}],"
                + "'tool_choice':{'type':'auto','disable_parallel_tool_use':true},"
                + "'messages':["
                + "{'role':'user','content':[{'type':'text','text':'Weather in Paris?'},"
                + "  {'type':'image','source':{'type':'base64','media_type':'image/png','data':'iVBOR'}},"
                + "  {'type':'image','source':{'type':'url','url':'https://example.com/a.jpg'}}]},"
                + "{'role':'assistant','content':[{'type':'thinking','thinking':'Need the tool.','signature':'sig'},"
                + "  {'type':'text','text':'Checking.'},"
                + "  {'type':'tool_use','id':'toolu_1','name':'get_weather','input':{'city':'Paris'}}]},"
                + "{'role':'user','content':[{'type':'tool_result','tool_use_id':'toolu_1','content':'18 C'},"
                + "  {'type':'text','text':'Thanks'}]}"
                + "]}");

        assertThat(r.messages()).containsExactly(
                ChatMessage.text(Role.SYSTEM, "Be brief.\n\nUse tools."),
                new ChatMessage(Role.USER, List.of(new ContentPart.Text("Weather in Paris?"),
                        new ContentPart.Image("data:image/png;base64,iVBOR", null),
                        new ContentPart.Image("https://example.com/a.jpg", null)), null, List.of(), null, null),
                new ChatMessage(Role.ASSISTANT, List.of(new ContentPart.Text("Checking.")), null,
                        List.of(new ToolCall("toolu_1", "get_weather", "{\"city\":\"Paris\"}")), null, "Need the tool."),
                new ChatMessage(Role.TOOL, List.of(new ContentPart.Text("18 C")), null, List.of(), "toolu_1", null),
                new ChatMessage(Role.USER, List.of(new ContentPart.Text("Thanks")), null, List.of(), null, null));
        assertThat(r.tools()).containsExactly(new ToolDefinition("get_weather", "Weather",
                "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}"));
        assertThat(r.toolChoiceJson()).isEqualTo("\"auto\"");
        assertThat(r.stream()).isTrue();
        assertThat(r.temperature()).isEqualTo(0.5);
        assertThat(r.topP()).isEqualTo(0.9);
        assertThat(r.stop()).containsExactly("END");
        // top_k, service_tier, cache_control and the signature are dropped: strict OpenAI upstreams refuse unknown fields
        assertThat(r.extra()).containsOnly(
                Map.entry("user", "\"u-1\""),
                Map.entry("reasoning_effort", "\"low\""),
                Map.entry("parallel_tool_calls", "false"),
                Map.entry("stream_options", "{\"include_usage\":true}"));

        // golden: what an OpenAI-compatible upstream receives
        JsonNode wire = tree(new OpenAiCodec().writeChatRequest(r.withModel("gpt-x")));
        assertThat(wire).isEqualTo(tree("{'model':'gpt-x','messages':["
                + "{'role':'system','content':'Be brief.\\n\\nUse tools.'},"
                + "{'role':'user','content':[{'type':'text','text':'Weather in Paris?'},"
                + "  {'type':'image_url','image_url':{'url':'data:image/png;base64,iVBOR'}},"
                + "  {'type':'image_url','image_url':{'url':'https://example.com/a.jpg'}}]},"
                + "{'role':'assistant','content':'Checking.','reasoning_content':'Need the tool.',"
                + "  'tool_calls':[{'id':'toolu_1','type':'function','function':{'name':'get_weather','arguments':'{\\'city\\':\\'Paris\\'}'}}]},"
                + "{'role':'tool','content':'18 C','tool_call_id':'toolu_1'},"
                + "{'role':'user','content':'Thanks'}],"
                + "'tools':[{'type':'function','function':{'name':'get_weather','description':'Weather',"
                + "  'parameters':{'type':'object','properties':{'city':{'type':'string'}}}}}],"
                + "'tool_choice':'auto','stream':true,'max_tokens':256,'temperature':0.5,'top_p':0.9,'stop':['END'],"
                + "'user':'u-1','reasoning_effort':'low','parallel_tool_calls':false,"
                + "'stream_options':{'include_usage':true}}"));
    }

    @Test
    void thinkingBecomesTheReasoningKnobAndIsNeverForwardedRaw() {
        // Claude Code sends {"type":"adaptive"}: a strict OpenAI-compatible upstream refuses an Anthropic field
        assertThat(read("{" + HEAD + "'thinking':{'type':'adaptive'}," + USER_HI + "}").extra()).doesNotContainKeys("thinking",
                "reasoning_effort");
        assertThat(read("{" + HEAD + "'thinking':{'type':'disabled'}," + USER_HI + "}").extra()).doesNotContainKeys("thinking",
                "reasoning_effort");
        assertThat(read("{" + HEAD + "'thinking':{'type':'enabled','budget_tokens':8000}," + USER_HI + "}").extra())
                .containsEntry("reasoning_effort", "\"medium\"").doesNotContainKey("thinking");
        assertThat(read("{" + HEAD + "'thinking':{'type':'enabled','budget_tokens':32000}," + USER_HI + "}").extra())
                .containsEntry("reasoning_effort", "\"high\"");
    }

    @Test
    void claudeCodesAnthropicOnlyFieldsNeverReachATranslatedUpstream() {
        // Claude Code 2.1 sends these; an OpenAI-compatible upstream refuses unknown arguments
        ChatRequest r = read("{" + HEAD + "'output_config':{'effort':'high'},"
                + "'context_management':{'edits':[{'type':'clear_tool_uses_20250919'}]},'container':'c-1','mcp_servers':[],"
                + "'service_tier':'auto','top_k':5,'messages':[{'role':'user','content':[{'type':'text','text':'hi',"
                + "'cache_control':{'type':'ephemeral'}}]}]}");
        assertThat(r.extra()).doesNotContainKeys("output_config", "context_management", "container", "mcp_servers", "service_tier",
                "top_k", "cache_control");
        assertThat(new String(new OpenAiCodec().writeChatRequest(r.withModel("gpt-x")), java.nio.charset.StandardCharsets.UTF_8))
                .doesNotContain("output_config").doesNotContain("context_management").doesNotContain("cache_control")
                .doesNotContain("mcp_servers").doesNotContain("container");
    }

    @Test
    void systemAsAPlainStringBecomesALeadingSystemMessage_API3() {
        ChatRequest r = read("{" + HEAD + "'system':'You are terse.'," + USER_HI + "}");
        assertThat(r.messages()).containsExactly(ChatMessage.text(Role.SYSTEM, "You are terse."), ChatMessage.text(Role.USER, "hi"));
    }

    @Test
    void aSystemMessageBetweenTheTurnsStaysWhereItIs_API3() {
        // Claude Code sends one after the first user turn; the SDKs type it as SystemMessageParam
        ChatRequest r = read("{" + HEAD + "'system':'Be terse.','messages':[{'role':'user','content':'hi'},"
                + "{'role':'system','content':[{'type':'text','text':'Agents: a'},{'type':'text','text':'b'}]},"
                + "{'role':'assistant','content':'ok'},{'role':'system','content':''}]}");
        assertThat(r.messages()).containsExactly(ChatMessage.text(Role.SYSTEM, "Be terse."), ChatMessage.text(Role.USER, "hi"),
                ChatMessage.text(Role.SYSTEM, "Agents: a\n\nb"), ChatMessage.text(Role.ASSISTANT, "ok"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{'type':'auto'}                    | \"auto\"",
        "{'type':'any'}                     | \"required\"",
        "{'type':'none'}                    | \"none\"",
        "{'type':'tool','name':'get_time'}  | {\"type\":\"function\",\"function\":{\"name\":\"get_time\"}}"})
    void toolChoiceMapsToTheOpenAiForm_API3(String choice, String expected) {
        ChatRequest r = read("{" + HEAD + "'tool_choice':" + choice + "," + USER_HI + "}");
        assertThat(r.toolChoiceJson()).isEqualTo(expected);
        assertThat(r.extra()).doesNotContainKey("parallel_tool_calls");
    }

    @Test
    void toolResultsBecomeToolMessagesInOrderWithTextBlockContent_API3() {
        ChatRequest r = read("{" + HEAD + "'messages':[{'role':'user','content':["
                + "{'type':'tool_result','tool_use_id':'a','content':[{'type':'text','text':'one'},{'type':'text','text':'two'}]},"
                + "{'type':'tool_result','tool_use_id':'b','is_error':true,'content':'failed'},"
                + "{'type':'tool_result','tool_use_id':'c'}]}]}");

        assertThat(r.messages()).containsExactly(
                new ChatMessage(Role.TOOL, List.of(new ContentPart.Text("one"), new ContentPart.Text("two")), null, List.of(), "a", null),
                new ChatMessage(Role.TOOL, List.of(new ContentPart.Text("failed")), null, List.of(), "b", null),
                new ChatMessage(Role.TOOL, List.of(new ContentPart.Text("")), null, List.of(), "c", null));
    }

    @Test
    void assistantToolUseWithoutTextHasNoContentAndRedactedThinkingIsDropped_API3() {
        ChatRequest r = read("{" + HEAD + "'messages':[{'role':'user','content':'go'},{'role':'assistant','content':["
                + "{'type':'redacted_thinking','data':'xyz'},{'type':'tool_use','id':'t1','name':'ls','input':{}}]}]}");

        assertThat(r.messages().get(1)).isEqualTo(new ChatMessage(Role.ASSISTANT, List.of(), null,
                List.of(new ToolCall("t1", "ls", "{}")), null, null));
    }

    @Test
    void unknownBlockTypesAreKeptVerbatim_API3() {
        ChatRequest r = read("{" + HEAD + "'messages':[{'role':'user','content':["
                + "{'type':'document','source':{'type':'text','media_type':'text/plain','data':'doc'}}]}]}");
        assertThat(r.messages().get(0).content()).containsExactly(new ContentPart.Other("document",
                "{\"type\":\"document\",\"source\":{\"type\":\"text\",\"media_type\":\"text/plain\",\"data\":\"doc\"}}"));
    }

    @Test
    void countTokensRequestNeedsNoMaxTokens_API3() {
        ChatRequest r = codec.readCountTokensRequest(json("{'model':'m'," + USER_HI + "}"));
        assertThat(r.maxTokens()).isNull();
    }

    // ------------------------------------------------------------------ validation

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{'max_tokens':5,'messages':[{'role':'user','content':'x'}]}                         | model",
        "{'model':'','max_tokens':5,'messages':[{'role':'user','content':'x'}]}              | model",
        "{'model':'m','messages':[{'role':'user','content':'x'}]}                            | max_tokens",
        "{'model':'m','max_tokens':0,'messages':[{'role':'user','content':'x'}]}             | max_tokens",
        "{'model':'m','max_tokens':1.5,'messages':[{'role':'user','content':'x'}]}           | max_tokens",
        "{'model':'m','max_tokens':'10','messages':[{'role':'user','content':'x'}]}          | max_tokens",
        "{'model':'m','max_tokens':5}                                                        | messages",
        "{'model':'m','max_tokens':5,'messages':[]}                                          | messages",
        "{'model':'m','max_tokens':5,'messages':{}}                                          | messages",
        "{'model':'m','max_tokens':5,'messages':['hi']}                                      | messages[0]",
        "{'model':'m','max_tokens':5,'messages':[{'content':'x'}]}                           | messages[0].role",
        "{'model':'m','max_tokens':5,'messages':[{'role':'tool','content':'x'}]}             | messages[0].role",
        "{'model':'m','max_tokens':5,'messages':[{'role':'system','content':[{'type':'image'}]}]} | messages[0].content[0].type",
        "{'model':'m','max_tokens':5,'messages':[{'role':'user'}]}                           | messages[0].content",
        "{'model':'m','max_tokens':5,'messages':[{'role':'user','content':5}]}               | messages[0].content",
        "{'model':'m','max_tokens':5,'messages':[{'role':'user','content':[{'text':'x'}]}]}  | messages[0].content[0].type",
        "{'model':'m','max_tokens':5,'messages':[{'role':'user','content':[{'type':'text'}]}]}  | messages[0].content[0].text",
        "{'model':'m','max_tokens':5,'messages':[{'role':'user','content':[{'type':'image','source':{'type':'base64','media_type':'image/png'}}]}]} | messages[0].content[0].source.data",
        "{'model':'m','max_tokens':5,'messages':[{'role':'user','content':[{'type':'image','source':{'type':'file','file_id':'f'}}]}]} | messages[0].content[0].source.type",
        "{'model':'m','max_tokens':5,'messages':[{'role':'user','content':[{'type':'tool_result','content':'x'}]}]} | messages[0].content[0].tool_use_id",
        "{'model':'m','max_tokens':5,'messages':[{'role':'user','content':[{'type':'tool_use','id':'a','name':'b','input':{}}]}]} | messages[0].content[0].type",
        "{'model':'m','max_tokens':5,'messages':[{'role':'assistant','content':[{'type':'tool_use','id':'a','input':{}}]}]} | messages[0].content[0].name",
        "{'model':'m','max_tokens':5,'messages':[{'role':'assistant','content':[{'type':'tool_use','id':'a','name':'b','input':'{}'}]}]} | messages[0].content[0].input",
        "{'model':'m','max_tokens':5,'messages':[{'role':'user','content':'x'},{'role':'assistant','content':[{'type':'thinking'}]}]} | messages[1].content[0].thinking",
        "{'model':'m','max_tokens':5,'system':5,'messages':[{'role':'user','content':'x'}]}  | system",
        "{'model':'m','max_tokens':5,'system':[{'type':'image'}],'messages':[{'role':'user','content':'x'}]} | system[0].type",
        "{'model':'m','max_tokens':5,'tools':{},'messages':[{'role':'user','content':'x'}]}  | tools",
        "{'model':'m','max_tokens':5,'tools':[{'input_schema':{}}],'messages':[{'role':'user','content':'x'}]} | tools[0].name",
        "{'model':'m','max_tokens':5,'tools':[{'name':'t','input_schema':'x'}],'messages':[{'role':'user','content':'x'}]} | tools[0].input_schema",
        "{'model':'m','max_tokens':5,'tools':[{'type':'web_search_20250305','name':'web_search'}],'messages':[{'role':'user','content':'x'}]} | tools[0].type",
        "{'model':'m','max_tokens':5,'tool_choice':'auto','messages':[{'role':'user','content':'x'}]} | tool_choice",
        "{'model':'m','max_tokens':5,'tool_choice':{'type':'maybe'},'messages':[{'role':'user','content':'x'}]} | tool_choice.type",
        "{'model':'m','max_tokens':5,'tool_choice':{'type':'tool'},'messages':[{'role':'user','content':'x'}]} | tool_choice.name",
        "{'model':'m','max_tokens':5,'stop_sequences':'END','messages':[{'role':'user','content':'x'}]} | stop_sequences",
        "{'model':'m','max_tokens':5,'temperature':'hot','messages':[{'role':'user','content':'x'}]} | temperature",
        "{'model':'m','max_tokens':5,'stream':'yes','messages':[{'role':'user','content':'x'}]} | stream",
        "{'model':'m','max_tokens':5,'metadata':{'user_id':7},'messages':[{'role':'user','content':'x'}]} | metadata.user_id",
        "{'model':'m','max_tokens':5,'thinking':true,'messages':[{'role':'user','content':'x'}]} | thinking"})
    void invalidRequestsNameTheField_API6(String body, String field) {
        InvalidRequestException e = invalid(body);
        assertThat(e.param()).isEqualTo(field);
        assertThat(e.getMessage()).contains(field);
    }

    @Test
    void bodyThatIsNotAJsonObjectIsRefused_API6() {
        assertThat(invalid("{'model':").getMessage()).contains("not valid JSON");
        assertThat(invalid("[1]").getMessage()).contains("JSON object");
        assertThat(catchThrowableOfType(InvalidRequestException.class, () -> codec.readMessagesRequest(new byte[0])).getMessage())
                .contains("empty");
    }

    // ------------------------------------------------------------------ responses

    @Test
    void textAnswerIsWrittenAsAnAnthropicMessage_API3() throws IOException {
        ChatResponse r = new ChatResponse("chatcmpl-1", "gpt-x", 1, List.of(new Choice(0, ChatMessage.text(Role.ASSISTANT, "Hello"),
                "stop")), new Usage(12, 3, 15), Map.of("system_fingerprint", "\"fp\""));

        assertThat(tree(codec.writeMessage(r, "msg_fallback", "fallback-model"))).isEqualTo(tree("{'id':'msg_chatcmpl-1','type':'message',"
                + "'role':'assistant','model':'gpt-x','content':[{'type':'text','text':'Hello'}],'stop_reason':'end_turn',"
                + "'stop_sequence':null,'usage':{'input_tokens':12,'output_tokens':3}}"));
    }

    @Test
    void thinkingTextAndToolCallsBecomeContentBlocksInOrder_API3() throws IOException {
        ChatMessage m = new ChatMessage(Role.ASSISTANT, List.of(new ContentPart.Text("Let me look.")), null,
                List.of(new ToolCall("call_1", "get_weather", "{\"city\":\"Paris\"}"), new ToolCall("call_2", "now", "")),
                null, "The user wants weather.");
        ChatResponse r = new ChatResponse("", "", 1, List.of(new Choice(0, m, "tool_calls")), null, Map.of());

        assertThat(tree(codec.writeMessage(r, "msg_req_1", "gpt-x"))).isEqualTo(tree("{'id':'msg_req_1','type':'message',"
                + "'role':'assistant','model':'gpt-x','content':["
                + "{'type':'thinking','thinking':'The user wants weather.','signature':''},"
                + "{'type':'text','text':'Let me look.'},"
                + "{'type':'tool_use','id':'call_1','name':'get_weather','input':{'city':'Paris'}},"
                + "{'type':'tool_use','id':'call_2','name':'now','input':{}}],"
                + "'stop_reason':'tool_use','stop_sequence':null,'usage':{'input_tokens':0,'output_tokens':0}}"));
    }

    @Test
    void emptyAnswerStillHasOneTextBlock_API3() throws IOException {
        ChatResponse r = new ChatResponse("msg_x", "m", 1, List.of(new Choice(0, new ChatMessage(Role.ASSISTANT, List.of(), null,
                List.of(), null, null), "length")), null, Map.of());
        JsonNode out = tree(codec.writeMessage(r, "f", "m"));
        assertThat(out.get("id").asText()).isEqualTo("msg_x");
        assertThat(out.get("content")).isEqualTo(tree("[{'type':'text','text':''}]"));
        assertThat(out.get("stop_reason").asText()).isEqualTo("max_tokens");
    }

    @Test
    void toolArgumentsThatAreNotAJsonObjectAreWrappedNotLost_API3() {
        assertThat(codec.toolInput("{\"a\":1}")).isEqualTo("{\"a\":1}");
        assertThat(codec.toolInput(" ")).isEqualTo("{}");
        assertThat(codec.toolInput("{\"a\":")).isEqualTo("{\"_raw_arguments\":\"{\\\"a\\\":\"}");
        assertThat(codec.toolInput("[1]")).isEqualTo("{\"_raw_arguments\":\"[1]\"}");
    }

    @ParameterizedTest
    @CsvSource({"stop,end_turn", "length,max_tokens", "tool_calls,tool_use", "function_call,tool_use",
        "content_filter,refusal", "something_new,end_turn"})
    void finishReasonsMapToStopReasons_API3(String finish, String stop) {
        assertThat(AnthropicCodec.stopReason(finish)).isEqualTo(stop);
    }

    @Test
    void absentFinishReasonIsEndTurn_API3() {
        assertThat(AnthropicCodec.stopReason(null)).isEqualTo("end_turn");
    }

    @ParameterizedTest
    @CsvSource({"400,invalid_request_error", "401,authentication_error", "403,permission_error", "404,not_found_error",
        "413,request_too_large", "429,rate_limit_error", "500,api_error", "502,api_error", "503,overloaded_error",
        "504,api_error", "529,overloaded_error", "422,invalid_request_error"})
    void errorTypesFollowTheStatus_API3(int status, String type) {
        assertThat(AnthropicCodec.errorType(status)).isEqualTo(type);
    }
}
