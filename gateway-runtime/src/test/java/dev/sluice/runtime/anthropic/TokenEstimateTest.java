package dev.sluice.runtime.anthropic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.chat.ChatRequest;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The local {@code count_tokens} estimate (SPEC API-3): UTF-8 bytes / 4, rounded up, plus a fixed cost per image. */
class TokenEstimateTest {

    private final AnthropicCodec codec = new AnthropicCodec();

    private ChatRequest read(String singleQuoted) {
        return codec.readCountTokensRequest(singleQuoted.replace('\'', '"').getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void namedDefaults_API3() {
        assertThat(TokenEstimate.BYTES_PER_TOKEN).isEqualTo(4);
        assertThat(TokenEstimate.TOKENS_PER_IMAGE).isEqualTo(1600);
    }

    @Test
    void textIsCountedAsUtf8BytesOverFourRoundedUp_API3() {
        // "hello" = 5 bytes -> 2 tokens
        assertThat(TokenEstimate.inputTokens(read("{'model':'m','messages':[{'role':'user','content':'hello'}]}"))).isEqualTo(2);
        // "été" = 5 bytes in UTF-8 -> 2 tokens
        assertThat(TokenEstimate.inputTokens(read("{'model':'m','messages':[{'role':'user','content':'été'}]}"))).isEqualTo(2);
        assertThat(TokenEstimate.inputTokens(read("{'model':'m','messages':[{'role':'user','content':''}]}"))).isEqualTo(1);
    }

    @Test
    void systemToolsToolCallsResultsAndImagesAllCount_API3() {
        ChatRequest r = read("{'model':'m','system':'12345678',"
                + "'tools':[{'name':'abcd','description':'efgh','input_schema':{}}],"
                + "'messages':[{'role':'user','content':[{'type':'text','text':'1234'},"
                + "  {'type':'image','source':{'type':'url','url':'https://example.com/a.png'}}]},"
                + "{'role':'assistant','content':[{'type':'thinking','thinking':'1234','signature':'s'},"
                + "  {'type':'tool_use','id':'t','name':'ab','input':{}}]},"
                + "{'role':'user','content':[{'type':'tool_result','tool_use_id':'t','content':'1234'}]}]}");
        // system 8 + tool 4+4+2 ({}) + text 4 + thinking 4 + call 2+2 ({}) + result 4 = 34 bytes -> 9 tokens, + 1 image
        assertThat(TokenEstimate.inputTokens(r)).isEqualTo(9 + 1600);
    }
}
