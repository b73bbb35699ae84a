package dev.sluice.runtime.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.ChatResponse;
import dev.sluice.api.chat.Choice;
import dev.sluice.api.chat.ChunkChoice;
import dev.sluice.api.chat.ContentPart;
import dev.sluice.api.chat.Role;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.chat.ToolCall;
import dev.sluice.api.chat.ToolCallDelta;
import dev.sluice.api.chat.ToolDefinition;
import dev.sluice.api.chat.Usage;
import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.UpstreamError;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** OpenAI Chat Completions JSON ⇄ canonical model (SPEC API-1, API-6). */
class OpenAiCodecTest {

    private final OpenAiCodec codec = new OpenAiCodec();
    private final ObjectMapper mapper = new ObjectMapper();

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Single quotes stand for double quotes, to keep JSON literals readable. */
    private static byte[] json(String singleQuoted) {
        return utf8(singleQuoted.replace('\'', '"'));
    }

    private ChatRequest read(String singleQuoted) {
        return codec.readChatRequest(json(singleQuoted));
    }

    private InvalidRequestException invalid(String singleQuoted) {
        return invalidBytes(json(singleQuoted));
    }

    private InvalidRequestException invalidBytes(byte[] body) {
        InvalidRequestException e = catchThrowableOfType(InvalidRequestException.class, () -> codec.readChatRequest(body));
        assertThat(e).as("expected an InvalidRequestException").isNotNull();
        return e;
    }

    private JsonNode tree(byte[] bytes) throws IOException {
        return mapper.readTree(bytes);
    }

    private static final String USER_HI = "'messages':[{'role':'user','content':'hi'}]";

    // ------------------------------------------------------------------ request parsing

    @Test
    void minimalRequestParsesWithDefaults_API1() {
        ChatRequest r = read("{'model':'gpt-4o'," + USER_HI + "}");

        assertThat(r.model()).isEqualTo("gpt-4o");
        assertThat(r.messages()).containsExactly(ChatMessage.text(Role.USER, "hi"));
        assertThat(r.tools()).isEmpty();
        assertThat(r.toolChoiceJson()).isNull();
        assertThat(r.stream()).isFalse();
        assertThat(r.maxTokens()).isNull();
        assertThat(r.temperature()).isNull();
        assertThat(r.topP()).isNull();
        assertThat(r.stop()).isEmpty();
        assertThat(r.extra()).isEmpty();
    }

    @Test
    void everyRoleAndSamplingParameterIsRead_API1() {
        ChatRequest r = read("{'model':'m','stream':true,'max_tokens':0,'temperature':0.7,'top_p':1,'messages':["
                + "{'role':'system','content':'s'},{'role':'developer','content':'d'},{'role':'user','content':'u','name':'bob'},"
                + "{'role':'assistant','content':'a','reasoning_content':'because'},{'role':'tool','content':'t','tool_call_id':'call_9'}]}");

        assertThat(r.messages()).extracting(ChatMessage::role)
                .containsExactly(Role.SYSTEM, Role.DEVELOPER, Role.USER, Role.ASSISTANT, Role.TOOL);
        assertThat(r.messages().get(2).name()).isEqualTo("bob");
        assertThat(r.messages().get(3).reasoningContent()).isEqualTo("because");
        assertThat(r.messages().get(4).toolCallId()).isEqualTo("call_9");
        assertThat(r.stream()).isTrue();
        assertThat(r.maxTokens()).isZero();
        assertThat(r.temperature()).isEqualTo(0.7);
        assertThat(r.topP()).isEqualTo(1.0);
    }

    @Test
    void arrayContentWithTextImagesAndUnknownPartsIsRead_API1() {
        ChatRequest r = read("{'model':'m','messages':[{'role':'user','content':["
                + "{'type':'text','text':'look'},"
                + "{'type':'image_url','image_url':{'url':'https://img.example/a.png','detail':'high'}},"
                + "{'type':'image_url','image_url':'data:image/png;base64,AAAA'},"
                + "{'type':'input_audio','input_audio':{'data':'UklG','format':'wav'}}]}]}");

        List<ContentPart> parts = r.messages().get(0).content();
        assertThat(parts).hasSize(4);
        assertThat(parts.get(0)).isEqualTo(new ContentPart.Text("look"));
        assertThat(parts.get(1)).isEqualTo(new ContentPart.Image("https://img.example/a.png", "high"));
        assertThat(parts.get(2)).isEqualTo(new ContentPart.Image("data:image/png;base64,AAAA", null));
        assertThat(parts.get(3)).isEqualTo(new ContentPart.Other("input_audio",
                "{\"type\":\"input_audio\",\"input_audio\":{\"data\":\"UklG\",\"format\":\"wav\"}}"));
        assertThat(r.messages().get(0).textContent()).isEqualTo("look");
    }

    @Test
    void nullContentIsAnEmptyPartList_API1() {
        ChatRequest r = read("{'model':'m','messages':[{'role':'assistant','content':null,'tool_calls':["
                + "{'id':'call_1','type':'function','function':{'name':'get_weather','arguments':'{\\'city\\':\\'Paris\\'}'}}]}]}");

        ChatMessage m = r.messages().get(0);
        assertThat(m.content()).isEmpty();
        assertThat(m.toolCalls()).containsExactly(new ToolCall("call_1", "get_weather", "{\"city\":\"Paris\"}"));
    }

    @Test
    void toolCallArgumentsGivenAsAnObjectAreKeptAsJsonText_API1() {
        ChatRequest r = read("{'model':'m','messages':[{'role':'assistant','tool_calls':["
                + "{'id':'c','function':{'name':'f','arguments':{'a':1}}},{'function':{'name':'g'}}]}]}");

        assertThat(r.messages().get(0).toolCalls()).containsExactly(
                new ToolCall("c", "f", "{\"a\":1}"), new ToolCall("", "g", ""));
    }

    @Test
    void toolsAreReadWithNameDescriptionAndRawParameters_API1() {
        ChatRequest r = read("{'model':'m'," + USER_HI + ",'tools':["
                + "{'type':'function','function':{'name':'get_weather','description':'Weather now','parameters':"
                + "{'type':'object','properties':{'city':{'type':'string'}},'required':['city']}}},"
                + "{'type':'function','function':{'name':'noop'}}]}");

        assertThat(r.tools()).containsExactly(
                new ToolDefinition("get_weather", "Weather now",
                        "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]}"),
                new ToolDefinition("noop", null, null));
    }

    @Test
    void toolChoiceIsKeptAsRawJson_API1() {
        assertThat(read("{'model':'m'," + USER_HI + ",'tool_choice':'auto'}").toolChoiceJson()).isEqualTo("\"auto\"");
        assertThat(read("{'model':'m'," + USER_HI + ",'tool_choice':{'type':'function','function':{'name':'f'}}}")
                .toolChoiceJson()).isEqualTo("{\"type\":\"function\",\"function\":{\"name\":\"f\"}}");
        assertThat(read("{'model':'m'," + USER_HI + ",'tool_choice':null}").toolChoiceJson()).isNull();
    }

    @Test
    void stopMayBeAStringOrAnArrayOfStrings_API1() {
        assertThat(read("{'model':'m'," + USER_HI + ",'stop':'END'}").stop()).containsExactly("END");
        assertThat(read("{'model':'m'," + USER_HI + ",'stop':['a','b']}").stop()).containsExactly("a", "b");
        assertThat(read("{'model':'m'," + USER_HI + ",'stop':null}").stop()).isEmpty();
    }

    @Test
    void unknownTopLevelParametersAreKeptVerbatimAsExtras_API1() {
        ChatRequest r = read("{'model':'m'," + USER_HI + ",'response_format':{'type':'json_schema','json_schema':{'name':'x','strict':true}},"
                + "'seed':42,'stream_options':{'include_usage':true},'user':'u-1','logit_bias':{'50256':-100},'n':2}");

        assertThat(r.extra()).containsExactlyInAnyOrderEntriesOf(Map.of(
                "response_format", "{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"x\",\"strict\":true}}",
                "seed", "42",
                "stream_options", "{\"include_usage\":true}",
                "user", "\"u-1\"",
                "logit_bias", "{\"50256\":-100}",
                "n", "2"));
    }

    @Test
    void writeChatRequestReEmitsEveryFieldAndExtrasWithTheReplacedModel_API1() throws IOException {
        ChatRequest r = read("{'model':'openai/gpt-4o','stream':true,'max_tokens':100,'temperature':0.5,'top_p':0.9,"
                + "'stop':'END','tool_choice':{'type':'function','function':{'name':'get_weather'}},"
                + "'tools':[{'type':'function','function':{'name':'get_weather','description':'d','parameters':{'type':'object'}}}],"
                + "'response_format':{'type':'json_object'},'seed':7,'stream_options':{'include_usage':true},"
                + "'messages':[{'role':'system','content':'be brief'},"
                + "{'role':'user','content':[{'type':'text','text':'what is this?'},{'type':'image_url','image_url':{'url':'https://i/x.png','detail':'low'}}]},"
                + "{'role':'assistant','content':null,'tool_calls':[{'id':'call_1','type':'function','function':{'name':'get_weather','arguments':'{}'}}]},"
                + "{'role':'tool','tool_call_id':'call_1','content':'sunny'}]}");

        JsonNode out = tree(codec.writeChatRequest(r.withModel("gpt-4o")));

        JsonNode expected = tree(json("{'model':'gpt-4o','messages':["
                + "{'role':'system','content':'be brief'},"
                + "{'role':'user','content':[{'type':'text','text':'what is this?'},{'type':'image_url','image_url':{'url':'https://i/x.png','detail':'low'}}]},"
                + "{'role':'assistant','content':null,'tool_calls':[{'id':'call_1','type':'function','function':{'name':'get_weather','arguments':'{}'}}]},"
                + "{'role':'tool','content':'sunny','tool_call_id':'call_1'}],"
                + "'tools':[{'type':'function','function':{'name':'get_weather','description':'d','parameters':{'type':'object'}}}],"
                + "'tool_choice':{'type':'function','function':{'name':'get_weather'}},"
                + "'stream':true,'max_tokens':100,'temperature':0.5,'top_p':0.9,'stop':['END'],"
                + "'response_format':{'type':'json_object'},'seed':7,'stream_options':{'include_usage':true}}"));
        assertThat(out).isEqualTo(expected);
    }

    @Test
    void writtenRequestReadsBackToTheSameCanonicalRequest_API1() {
        ChatRequest r = read("{'model':'m','messages':[{'role':'user','content':[{'type':'text','text':'a'},"
                + "{'type':'input_audio','input_audio':{'data':'x'}}]}],'temperature':1,'metadata':{'k':'v'}}");

        assertThat(codec.readChatRequest(codec.writeChatRequest(r))).isEqualTo(r);
    }

    @Test
    void nonStreamingRequestOmitsStreamAndUnsetOptionals_API1() throws IOException {
        JsonNode out = tree(codec.writeChatRequest(read("{'model':'m'," + USER_HI + "}")));

        assertThat(out).isEqualTo(tree(json("{'model':'m','messages':[{'role':'user','content':'hi'}]}")));
    }

    // ------------------------------------------------------------------ request validation (API-6)

    @Test
    void missingModelIsRejectedNamingTheField_API6() {
        InvalidRequestException e = invalid("{" + USER_HI + "}");
        assertThat(e.param()).isEqualTo("model");
        assertThat(e.getMessage()).isEqualTo("Missing required parameter: 'model'.");
    }

    @Test
    void nullModelIsRejectedAsMissing_API6() {
        assertThat(invalid("{'model':null," + USER_HI + "}").param()).isEqualTo("model");
    }

    @Test
    void modelThatIsNotAStringIsRejectedNamingTheField_API6() {
        InvalidRequestException e = invalid("{'model':42," + USER_HI + "}");
        assertThat(e.param()).isEqualTo("model");
        assertThat(e.getMessage()).isEqualTo("'model' must be a non-empty string.");
    }

    @Test
    void blankModelIsRejectedNamingTheField_API6() {
        InvalidRequestException e = invalid("{'model':'  '," + USER_HI + "}");
        assertThat(e.param()).isEqualTo("model");
        assertThat(e.getMessage()).isEqualTo("'model' must be a non-empty string.");
    }

    @Test
    void missingMessagesIsRejectedNamingTheField_API6() {
        InvalidRequestException e = invalid("{'model':'m'}");
        assertThat(e.param()).isEqualTo("messages");
        assertThat(e.getMessage()).isEqualTo("Missing required parameter: 'messages'.");
    }

    @Test
    void emptyMessagesIsRejectedNamingTheField_API6() {
        InvalidRequestException e = invalid("{'model':'m','messages':[]}");
        assertThat(e.param()).isEqualTo("messages");
        assertThat(e.getMessage()).isEqualTo("'messages' must be a non-empty array of message objects.");
    }

    @Test
    void messagesThatIsNotAnArrayIsRejectedNamingTheField_API6() {
        assertThat(invalid("{'model':'m','messages':'hi'}").param()).isEqualTo("messages");
        assertThat(invalid("{'model':'m','messages':{'role':'user'}}").param()).isEqualTo("messages");
    }

    @Test
    void messageThatIsNotAnObjectIsRejectedNamingItsIndex_API6() {
        InvalidRequestException e = invalid("{'model':'m','messages':[{'role':'user','content':'a'},'b']}");
        assertThat(e.param()).isEqualTo("messages[1]");
    }

    @Test
    void messageWithoutRoleIsRejectedNamingTheField_API6() {
        InvalidRequestException e = invalid("{'model':'m','messages':[{'content':'hi'}]}");
        assertThat(e.param()).isEqualTo("messages[0].role");
        assertThat(e.getMessage()).isEqualTo("Missing required parameter: 'messages[0].role'.");
        assertThat(invalid("{'model':'m','messages':[{'role':7,'content':'hi'}]}").param()).isEqualTo("messages[0].role");
    }

    @Test
    void unknownRoleIsRejectedNamingTheFieldAndTheValue_API6() {
        InvalidRequestException e = invalid("{'model':'m','messages':[{'role':'user','content':'a'},{'role':'robot','content':'b'}]}");
        assertThat(e.param()).isEqualTo("messages[1].role");
        assertThat(e.getMessage()).isEqualTo(
                "Invalid value for 'messages[1].role': 'robot' (expected system, developer, user, assistant or tool).");
    }

    @Test
    void roleIsCaseSensitive_API6() {
        assertThat(invalid("{'model':'m','messages':[{'role':'User','content':'a'}]}").param()).isEqualTo("messages[0].role");
    }

    @Test
    void contentOfTheWrongTypeIsRejectedNamingTheField_API6() {
        InvalidRequestException e = invalid("{'model':'m','messages':[{'role':'user','content':5}]}");
        assertThat(e.param()).isEqualTo("messages[0].content");
        assertThat(e.getMessage()).isEqualTo("'messages[0].content' must be a string or an array of content parts.");
    }

    @Test
    void contentPartWithoutTypeIsRejectedNamingTheField_API6() {
        assertThat(invalid("{'model':'m','messages':[{'role':'user','content':[{'text':'a'}]}]}").param())
                .isEqualTo("messages[0].content[0].type");
        assertThat(invalid("{'model':'m','messages':[{'role':'user','content':['a']}]}").param())
                .isEqualTo("messages[0].content[0].type");
    }

    @Test
    void textPartWithoutTextIsRejectedNamingTheField_API6() {
        assertThat(invalid("{'model':'m','messages':[{'role':'user','content':[{'type':'text'}]}]}").param())
                .isEqualTo("messages[0].content[0].text");
        assertThat(invalid("{'model':'m','messages':[{'role':'user','content':[{'type':'text','text':1}]}]}").param())
                .isEqualTo("messages[0].content[0].text");
    }

    @Test
    void imagePartWithoutUrlIsRejectedNamingTheField_API6() {
        assertThat(invalid("{'model':'m','messages':[{'role':'user','content':[{'type':'text','text':'a'},{'type':'image_url'}]}]}")
                .param()).isEqualTo("messages[0].content[1].image_url.url");
        assertThat(invalid("{'model':'m','messages':[{'role':'user','content':[{'type':'image_url','image_url':{'detail':'low'}}]}]}")
                .param()).isEqualTo("messages[0].content[0].image_url.url");
    }

    @Test
    void toolCallsThatAreNotAnArrayOrLackANameAreRejectedNamingTheField_API6() {
        assertThat(invalid("{'model':'m','messages':[{'role':'assistant','tool_calls':{}}]}").param())
                .isEqualTo("messages[0].tool_calls");
        assertThat(invalid("{'model':'m','messages':[{'role':'assistant','tool_calls':[{'id':'c','function':{}}]}]}").param())
                .isEqualTo("messages[0].tool_calls[0].function.name");
    }

    @Test
    void badStreamTypeIsRejectedNamingTheField_API6() {
        InvalidRequestException e = invalid("{'model':'m'," + USER_HI + ",'stream':'yes'}");
        assertThat(e.param()).isEqualTo("stream");
        assertThat(e.getMessage()).isEqualTo("'stream' must be a boolean.");
        assertThat(invalid("{'model':'m'," + USER_HI + ",'stream':1}").param()).isEqualTo("stream");
    }

    @Test
    void negativeMaxTokensIsRejectedNamingTheField_API6() {
        InvalidRequestException e = invalid("{'model':'m'," + USER_HI + ",'max_tokens':-1}");
        assertThat(e.param()).isEqualTo("max_tokens");
        assertThat(e.getMessage()).isEqualTo("'max_tokens' must be an integer >= 0.");
    }

    @Test
    void fractionalStringOrHugeMaxTokensIsRejectedNamingTheField_API6() {
        assertThat(invalid("{'model':'m'," + USER_HI + ",'max_tokens':1.5}").param()).isEqualTo("max_tokens");
        assertThat(invalid("{'model':'m'," + USER_HI + ",'max_tokens':'100'}").param()).isEqualTo("max_tokens");
        assertThat(invalid("{'model':'m'," + USER_HI + ",'max_tokens':99999999999}").param()).isEqualTo("max_tokens");
    }

    @Test
    void badTemperatureTypeIsRejectedNamingTheField_API6() {
        InvalidRequestException e = invalid("{'model':'m'," + USER_HI + ",'temperature':'hot'}");
        assertThat(e.param()).isEqualTo("temperature");
        assertThat(e.getMessage()).isEqualTo("'temperature' must be a number.");
    }

    @Test
    void badTopPTypeIsRejectedNamingTheField_API6() {
        assertThat(invalid("{'model':'m'," + USER_HI + ",'top_p':true}").param()).isEqualTo("top_p");
    }

    @Test
    void badStopIsRejectedNamingTheField_API6() {
        assertThat(invalid("{'model':'m'," + USER_HI + ",'stop':5}").param()).isEqualTo("stop");
        InvalidRequestException e = invalid("{'model':'m'," + USER_HI + ",'stop':['a',1]}");
        assertThat(e.param()).isEqualTo("stop");
        assertThat(e.getMessage()).isEqualTo("'stop' must be a string or an array of strings.");
    }

    @Test
    void badToolsAreRejectedNamingTheField_API6() {
        assertThat(invalid("{'model':'m'," + USER_HI + ",'tools':{}}").param()).isEqualTo("tools");
        InvalidRequestException e = invalid("{'model':'m'," + USER_HI + ",'tools':[{'type':'function','function':{'name':'a'}},"
                + "{'type':'function','function':{'description':'no name'}}]}");
        assertThat(e.param()).isEqualTo("tools[1].function.name");
        assertThat(e.getMessage()).isEqualTo("Missing required parameter: 'tools[1].function.name'.");
    }

    @Test
    void nonJsonBodyIsRejectedWithItsPosition_API6() {
        InvalidRequestException e = invalidBytes(utf8("{\"model\": \"m\",\n  oops}"));
        assertThat(e.param()).isNull();
        assertThat(e.getMessage()).startsWith("Request body is not valid JSON (line 2, column ");
    }

    @Test
    void trailingContentAfterTheObjectIsRejected_API6() {
        assertThat(invalidBytes(utf8("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]} trailing"))
                .getMessage()).startsWith("Request body is not valid JSON");
        assertThat(invalidBytes(utf8("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}{\"x\":1}"))
                .getMessage()).startsWith("Request body is not valid JSON");
    }

    @Test
    void jsonArrayBodyIsRejected_API6() {
        InvalidRequestException e = invalidBytes(utf8("[{\"model\":\"m\"}]"));
        assertThat(e.param()).isNull();
        assertThat(e.getMessage()).isEqualTo("Request body must be a JSON object.");
    }

    @Test
    void jsonScalarBodyIsRejected_API6() {
        assertThat(invalidBytes(utf8("\"hello\"")).getMessage()).isEqualTo("Request body must be a JSON object.");
    }

    @Test
    void emptyBodyIsRejected_API6() {
        InvalidRequestException e = invalidBytes(new byte[0]);
        assertThat(e.param()).isNull();
        assertThat(e.getMessage()).isEqualTo("Request body is empty; expected a JSON object.");
    }

    @Test
    void whitespaceOnlyBodyIsRejectedAsNotAnObject_API6() {
        assertThat(invalidBytes(utf8("  \n ")).getMessage()).isEqualTo("Request body must be a JSON object.");
    }

    @Test
    void invalidRequestExceptionCarriesNoStackTrace_API6() {
        assertThat(invalid("{}").getStackTrace()).isEmpty();
    }

    // ------------------------------------------------------------------ embeddings

    @Test
    void embeddingRequestKeepsInputAndExtrasVerbatim_API4() throws IOException {
        var r = codec.readEmbeddingRequest(json("{'model':'openai/text-embedding-3-small','input':['a','b'],'dimensions':256}"));

        assertThat(r.inputJson()).isEqualTo("[\"a\",\"b\"]");
        assertThat(r.extra()).containsExactlyEntriesOf(Map.of("dimensions", "256"));
        assertThat(tree(codec.writeEmbeddingRequest(r.withModel("text-embedding-3-small"))))
                .isEqualTo(tree(json("{'model':'text-embedding-3-small','input':['a','b'],'dimensions':256}")));
    }

    @Test
    void embeddingRequestWithoutOrWithBadInputIsRejectedNamingTheField_API6() {
        InvalidRequestException missing = catchThrowableOfType(InvalidRequestException.class,
                () -> codec.readEmbeddingRequest(json("{'model':'m'}")));
        assertThat(missing.param()).isEqualTo("input");
        InvalidRequestException bad = catchThrowableOfType(InvalidRequestException.class,
                () -> codec.readEmbeddingRequest(json("{'model':'m','input':3}")));
        assertThat(bad.param()).isEqualTo("input");
    }

    // ------------------------------------------------------------------ responses

    private static final String TOOL_CALL_RESPONSE = "{'id':'chatcmpl-1','object':'chat.completion','created':1700000000,"
            + "'model':'gpt-4o-2024-08-06','system_fingerprint':'fp_abc','service_tier':'default','choices':[{'index':0,"
            + "'message':{'role':'assistant','content':null,'tool_calls':[{'id':'call_1','type':'function',"
            + "'function':{'name':'get_weather','arguments':'{\\'city\\':\\'Paris\\'}'}}]},'finish_reason':'tool_calls'}],"
            + "'usage':{'prompt_tokens':10,'completion_tokens':5,'total_tokens':15}}";

    @Test
    void responseWithToolCallsUsageAndExtrasIsParsed_API1() {
        ChatResponse r = codec.readChatResponse(json(TOOL_CALL_RESPONSE));

        assertThat(r.id()).isEqualTo("chatcmpl-1");
        assertThat(r.model()).isEqualTo("gpt-4o-2024-08-06");
        assertThat(r.created()).isEqualTo(1700000000L);
        assertThat(r.choices()).hasSize(1);
        Choice c = r.choices().get(0);
        assertThat(c.index()).isZero();
        assertThat(c.finishReason()).isEqualTo("tool_calls");
        assertThat(c.message().role()).isEqualTo(Role.ASSISTANT);
        assertThat(c.message().content()).isEmpty();
        assertThat(c.message().toolCalls()).containsExactly(new ToolCall("call_1", "get_weather", "{\"city\":\"Paris\"}"));
        assertThat(r.usage()).isEqualTo(new Usage(10, 5, 15));
        assertThat(r.extra()).containsExactlyInAnyOrderEntriesOf(Map.of("system_fingerprint", "\"fp_abc\"", "service_tier", "\"default\""));
    }

    @Test
    void responseRoundTripsThroughWriteAndRead_API1() throws IOException {
        ChatResponse r = codec.readChatResponse(json(TOOL_CALL_RESPONSE));
        byte[] written = codec.writeChatResponse(r);

        assertThat(codec.readChatResponse(written)).isEqualTo(r);
        assertThat(tree(written)).isEqualTo(tree(json("{'id':'chatcmpl-1','object':'chat.completion','created':1700000000,"
                + "'model':'gpt-4o-2024-08-06','choices':[{'index':0,'message':{'role':'assistant','content':null,"
                + "'tool_calls':[{'id':'call_1','type':'function','function':{'name':'get_weather','arguments':'{\\'city\\':\\'Paris\\'}'}}]},"
                + "'finish_reason':'tool_calls'}],'usage':{'prompt_tokens':10,'completion_tokens':5,'total_tokens':15},"
                + "'system_fingerprint':'fp_abc','service_tier':'default'}")));
    }

    @Test
    void textResponseWithoutUsageWritesNullFinishReasonAndNoUsage_API1() throws IOException {
        ChatResponse r = new ChatResponse("id-1", "m", 5, List.of(new Choice(0, ChatMessage.text(Role.ASSISTANT, "hello"), null)),
                null, Map.of());

        assertThat(tree(codec.writeChatResponse(r))).isEqualTo(tree(json("{'id':'id-1','object':'chat.completion','created':5,"
                + "'model':'m','choices':[{'index':0,'message':{'role':'assistant','content':'hello'},'finish_reason':null}]}")));
    }

    @Test
    void responseUsageWithoutTotalIsSummedAndMissingFieldsDefault_API1() {
        ChatResponse r = codec.readChatResponse(json("{'choices':[{'message':{'role':'assistant','content':'x'},"
                + "'finish_reason':'length'}],'usage':{'prompt_tokens':3,'completion_tokens':4}}"));

        assertThat(r.id()).isEmpty();
        assertThat(r.model()).isEmpty();
        assertThat(r.created()).isZero();
        assertThat(r.choices().get(0).finishReason()).isEqualTo("length");
        assertThat(r.usage()).isEqualTo(new Usage(3, 4, 7));
    }

    @Test
    void choiceWithoutMessageBecomesAnEmptyAssistantMessage_API1() {
        ChatResponse r = codec.readChatResponse(json("{'choices':[{'index':2,'finish_reason':'stop'}]}"));

        assertThat(r.choices()).containsExactly(new Choice(2, ChatMessage.text(Role.ASSISTANT, ""), "stop"));
    }

    @Test
    void responseWithoutChoicesIsRejectedNamingTheField_API1() {
        InvalidRequestException e = catchThrowableOfType(InvalidRequestException.class,
                () -> codec.readChatResponse(json("{'id':'x','error':{'message':'no'}}")));
        assertThat(e.param()).isEqualTo("choices");
    }

    // ------------------------------------------------------------------ stream chunks

    private StreamChunk chunk(String singleQuoted) {
        return codec.readChunk(singleQuoted.replace('\'', '"'));
    }

    @Test
    void firstChunkCarriesTheRoleAndEmptyContent_API1() {
        StreamChunk c = chunk("{'id':'c1','object':'chat.completion.chunk','created':7,'model':'m','system_fingerprint':'fp',"
                + "'choices':[{'index':0,'delta':{'role':'assistant','content':''},'finish_reason':null}]}");

        assertThat(c.id()).isEqualTo("c1");
        assertThat(c.model()).isEqualTo("m");
        assertThat(c.created()).isEqualTo(7);
        assertThat(c.usage()).isNull();
        assertThat(c.extra()).containsExactlyEntriesOf(Map.of("system_fingerprint", "\"fp\""));
        assertThat(c.choices()).containsExactly(new ChunkChoice(0, Role.ASSISTANT, "", List.of(), null, null));
    }

    @Test
    void contentReasoningAndFinishReasonChunksAreRead_API1() {
        assertThat(chunk("{'id':'c1','model':'m','choices':[{'index':0,'delta':{'content':'Hel'}}]}").choices())
                .containsExactly(new ChunkChoice(0, null, "Hel", List.of(), null, null));
        assertThat(chunk("{'id':'c1','model':'m','choices':[{'index':0,'delta':{'reasoning_content':'think'}}]}").choices())
                .containsExactly(new ChunkChoice(0, null, null, List.of(), null, "think"));
        assertThat(chunk("{'id':'c1','model':'m','choices':[{'index':0,'delta':{},'finish_reason':'stop'}]}").choices())
                .containsExactly(new ChunkChoice(0, null, null, List.of(), "stop", null));
    }

    @Test
    void toolCallDeltasAreRead_API1() {
        StreamChunk first = chunk("{'id':'c','model':'m','choices':[{'index':0,'delta':{'tool_calls':[{'index':0,'id':'call_1',"
                + "'type':'function','function':{'name':'get_weather','arguments':''}}]}}]}");
        StreamChunk next = chunk("{'id':'c','model':'m','choices':[{'index':0,'delta':{'tool_calls':[{'index':0,"
                + "'function':{'arguments':'{\\'ci'}}]}}]}");

        assertThat(first.choices().get(0).toolCalls()).containsExactly(new ToolCallDelta(0, "call_1", "get_weather", ""));
        assertThat(next.choices().get(0).toolCalls()).containsExactly(new ToolCallDelta(0, null, null, "{\"ci"));
    }

    @Test
    void usageOnlyChunkHasNoChoices_API1() {
        StreamChunk c = chunk("{'id':'c','object':'chat.completion.chunk','created':1,'model':'m','choices':[],"
                + "'usage':{'prompt_tokens':9,'completion_tokens':1,'total_tokens':10}}");

        assertThat(c.choices()).isEmpty();
        assertThat(c.usage()).isEqualTo(new Usage(9, 1, 10));
    }

    @Test
    void unreadableChunksAreRejected_API1() {
        InvalidRequestException notJson = catchThrowableOfType(InvalidRequestException.class, () -> codec.readChunk("{oops"));
        assertThat(notJson.getMessage()).isEqualTo("stream chunk is not valid JSON");
        InvalidRequestException notObject = catchThrowableOfType(InvalidRequestException.class, () -> codec.readChunk("[1]"));
        assertThat(notObject.getMessage()).isEqualTo("stream chunk is not a JSON object");
        // an unknown role in an upstream delta must not abort a stream: it is read as the assistant's
        assertThat(chunk("{'choices':[{'delta':{'role':'robot'}}]}").choices().get(0).role()).isEqualTo(Role.ASSISTANT);
    }

    @Test
    void chunkEventIsFramedAsOneDataLineEndedByABlankLine_API1() {
        String event = new String(codec.writeChunkEvent(new StreamChunk("c1", "m", 7,
                List.of(new ChunkChoice(0, null, "line1\nline2", List.of(), null, null)), null, Map.of())), StandardCharsets.UTF_8);

        assertThat(event).startsWith("data: {").endsWith("}\n\n");
        assertThat(event.substring(0, event.length() - 2)).doesNotContain("\n");
        assertThat(new String(OpenAiCodec.DONE_EVENT, StandardCharsets.US_ASCII)).isEqualTo("data: [DONE]\n\n");
    }

    @Test
    void chunkEventWritesRoleContentReasoningToolCallsAndFinishReason_API1() throws IOException {
        StreamChunk c = new StreamChunk("c1", "m", 7, List.of(new ChunkChoice(0, Role.ASSISTANT, "hi",
                List.of(new ToolCallDelta(0, "call_1", "f", ""), new ToolCallDelta(0, null, null, "{}")), "tool_calls", "hmm")),
                null, Map.of("system_fingerprint", "\"fp\""));
        String event = new String(codec.writeChunkEvent(c), StandardCharsets.UTF_8);
        String payload = event.substring("data: ".length(), event.length() - 2);

        assertThat(tree(utf8(payload))).isEqualTo(tree(json("{'id':'c1','object':'chat.completion.chunk','created':7,'model':'m',"
                + "'choices':[{'index':0,'delta':{'role':'assistant','content':'hi','reasoning_content':'hmm','tool_calls':["
                + "{'index':0,'id':'call_1','type':'function','function':{'name':'f','arguments':''}},"
                + "{'index':0,'function':{'arguments':'{}'}}]},'finish_reason':'tool_calls'}],'system_fingerprint':'fp'}")));
        assertThat(codec.readChunk(payload)).isEqualTo(c);
    }

    @Test
    void usageOnlyChunkEventRoundTrips_API1() {
        StreamChunk c = new StreamChunk("c1", "m", 7, List.of(), new Usage(1, 2, 3), Map.of());
        String event = new String(codec.writeChunkEvent(c), StandardCharsets.UTF_8);

        assertThat(event).contains("\"choices\":[]").contains("\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":2,\"total_tokens\":3}");
        assertThat(codec.readChunk(event.substring(6, event.length() - 2))).isEqualTo(c);
    }

    // ------------------------------------------------------------------ upstream errors

    private static final ResponseHead HEAD_429 = new ResponseHead(429, Map.of());

    @Test
    void openAiErrorEnvelopeWithNumericCodeIsRead_FC1() {
        String body = "{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\",\"code\":1302,\"param\":null}}";
        UpstreamError e = codec.readError(HEAD_429, body);

        assertThat(e.status()).isEqualTo(429);
        assertThat(e.message()).isEqualTo("Rate limit reached");
        assertThat(e.errorType()).isEqualTo("requests");
        assertThat(e.errorCode()).isEqualTo("1302");
        assertThat(e.body()).isEqualTo(body);
        assertThat(e.describe()).isEqualTo("HTTP 429: Rate limit reached");
    }

    @Test
    void openAiErrorEnvelopeWithStringCodeIsRead_FC1() {
        UpstreamError e = codec.readError(HEAD_429,
                "{\"error\":{\"message\":\"You exceeded your current quota\",\"type\":\"insufficient_quota\",\"code\":\"insufficient_quota\"}}");

        assertThat(e.errorCode()).isEqualTo("insufficient_quota");
        assertThat(e.errorType()).isEqualTo("insufficient_quota");
        assertThat(e.message()).isEqualTo("You exceeded your current quota");
    }

    @Test
    void topLevelMessageVariantIsRead_FC1() {
        UpstreamError e = codec.readError(HEAD_429, "{\"message\":\"Too many requests\",\"code\":1302,\"type\":\"limit\"}");

        assertThat(e.message()).isEqualTo("Too many requests");
        assertThat(e.errorCode()).isEqualTo("1302");
        assertThat(e.errorType()).isEqualTo("limit");
    }

    @Test
    void errorAsAPlainStringIsTheMessage_FC1() {
        UpstreamError e = codec.readError(HEAD_429, "{\"error\":\"quota exceeded\"}");

        assertThat(e.message()).isEqualTo("quota exceeded");
        assertThat(e.errorCode()).isNull();
        assertThat(e.errorType()).isNull();
    }

    @Test
    void plainTextErrorKeepsTheBodyAndDescribesWithIt_FC1() {
        UpstreamError e = codec.readError(new ResponseHead(502, Map.of()), "  Bad Gateway\n");

        assertThat(e.message()).isNull();
        assertThat(e.errorCode()).isNull();
        assertThat(e.errorType()).isNull();
        assertThat(e.body()).isEqualTo("  Bad Gateway\n");
        assertThat(e.describe()).isEqualTo("HTTP 502: Bad Gateway");
    }

    @Test
    void emptyAndNonObjectErrorBodiesYieldNoStructuredFields_FC1() {
        UpstreamError empty = codec.readError(new ResponseHead(503, Map.of()), "");
        assertThat(empty.message()).isNull();
        assertThat(empty.describe()).isEqualTo("HTTP 503");
        UpstreamError array = codec.readError(new ResponseHead(500, Map.of()), "[1,2]");
        assertThat(array.message()).isNull();
        assertThat(array.errorCode()).isNull();
    }

    // ------------------------------------------------------------------ nested fields kept verbatim

    @Test
    void nestedFieldsTheCanonicalModelDoesNotNameSurviveOpenAiToOpenAi() throws Exception {
        com.fasterxml.jackson.databind.ObjectMapper m = new com.fasterxml.jackson.databind.ObjectMapper();
        String answer = "{\"id\":\"c1\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,"
                + "\"message\":{\"role\":\"assistant\",\"content\":\"hi\",\"refusal\":null,\"annotations\":[]},"
                + "\"logprobs\":{\"content\":[]},\"finish_reason\":\"stop\"}],"
                + "\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":2,\"total_tokens\":3,\"prompt_tokens_details\":{\"cached_tokens\":1}}}";
        com.fasterxml.jackson.databind.JsonNode out = m.readTree(codec.writeChatResponse(codec.readChatResponse(answer.getBytes())));
        assertThat(out.at("/choices/0/logprobs/content").isArray()).isTrue();
        assertThat(out.at("/choices/0/message/refusal").isNull()).isTrue();
        assertThat(out.at("/choices/0/message/annotations").isArray()).isTrue();
        assertThat(out.at("/usage/prompt_tokens_details/cached_tokens").asInt()).isEqualTo(1);

        String chunk = "{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,"
                + "\"delta\":{\"content\":\"x\",\"refusal\":null},\"logprobs\":null,\"finish_reason\":null}]}";
        String event = new String(codec.writeChunkEvent(codec.readChunk(chunk)), java.nio.charset.StandardCharsets.UTF_8);
        com.fasterxml.jackson.databind.JsonNode c = m.readTree(event.substring("data: ".length()));
        assertThat(c.at("/choices/0/delta/refusal").isNull()).isTrue();
        assertThat(c.at("/choices/0/logprobs").isNull()).isTrue();

        String request = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"x\",\"cache_control\":{\"type\":\"ephemeral\"}}],"
                + "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"parameters\":{},\"strict\":true}}]}";
        com.fasterxml.jackson.databind.JsonNode sent = m.readTree(codec.writeChatRequest(codec.readChatRequest(request.getBytes())));
        assertThat(sent.at("/messages/0/cache_control/type").asText()).isEqualTo("ephemeral");
        assertThat(sent.at("/tools/0/function/strict").asBoolean()).isTrue();
    }
}
