package dev.sluice.plugin.gemini;

import dev.sluice.toolkit.json.Json;

import dev.sluice.api.chat.ChunkChoice;
import dev.sluice.api.chat.FrameKind;
import dev.sluice.api.chat.Role;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.chat.ToolCall;
import dev.sluice.api.chat.ToolCallDelta;
import dev.sluice.api.chat.Usage;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Translates the fragments of a Gemini stream ({@code alt=sse}: each event a partial
 * {@code GenerateContentResponse}) into canonical chunks, one fragment at a time, keeping only
 * what the next fragment needs: the answer id, per candidate whether its role was sent, how many
 * tool calls it made and whether it finished, and the latest usage.
 *
 * <p>Per fragment and candidate: runs of text become {@link FrameKind#CONTENT} chunks, runs of
 * thought text {@link FrameKind#REASONING} chunks, each function call one complete tool-call
 * chunk (id, name and all arguments: Gemini sends calls whole); the first chunk of a candidate
 * carries the role. A finish reason becomes a {@link FrameKind#METADATA} chunk, which also carries
 * the usage once every candidate finished (Gemini repeats cumulative usage on many fragments; the
 * client gets it once, at the end). Not thread-safe: one stream, one reader.
 */
final class StreamTranslator {

    private final String requestedModel;
    private final long created;
    private final Ids ids;
    private final Map<Integer, CandidateState> candidates = new TreeMap<>();
    private String id;
    private String model;
    private Usage latestUsage;
    private Usage emittedUsage;

    private static final class CandidateState {
        boolean roleSent;
        int toolCalls;
        boolean finished;
    }

    /**
     * Creates a translator for one stream.
     *
     * @param requestedModel the model the request named (used when Gemini sends no {@code modelVersion})
     * @param created epoch seconds for every chunk
     * @param ids id source
     */
    StreamTranslator(String requestedModel, long created, Ids ids) {
        this.requestedModel = requestedModel;
        this.created = created;
        this.ids = ids;
    }

    /**
     * Whether every candidate seen so far has finished (the stream may end now).
     *
     * @return true after the last finish reason
     */
    boolean finished() {
        if (candidates.isEmpty()) {
            return false;
        }
        for (CandidateState s : candidates.values()) {
            if (!s.finished) {
                return false;
            }
        }
        return true;
    }

    /**
     * Translates one fragment.
     *
     * @param fragment the parsed event data
     * @return the chunks it produces, in order (possibly none)
     * @throws IOException when the fragment is an error Google sent inside the stream
     */
    List<StreamChunk> feed(Map<String, Object> fragment) throws IOException {
        if (fragment.containsKey("error")) {
            throw new IOException("upstream sent an error inside the stream: " + GeminiErrorReader.summary(fragment));
        }
        if (id == null) {
            String responseId = Json.string(fragment, "responseId");
            String version = Json.string(fragment, "modelVersion");
            id = responseId == null || responseId.isEmpty() ? ids.responseId() : responseId;
            model = version == null || version.isEmpty() ? requestedModel : version;
        }
        Usage usage = UsageReader.read(Json.object(fragment, "usageMetadata"));
        if (usage != null) {
            latestUsage = usage;
        }
        List<StreamChunk> out = new ArrayList<>();
        List<ChunkChoice> finishes = new ArrayList<>();
        List<Object> list = Json.array(fragment, "candidates");
        if (list.isEmpty() && candidates.isEmpty()) {
            String block = Json.string(Json.object(fragment, "promptFeedback"), "blockReason");
            if (block != null) {
                CandidateState s = new CandidateState();
                candidates.put(0, s);
                s.finished = true;
                s.roleSent = true;
                finishes.add(new ChunkChoice(0, Role.ASSISTANT, null, List.of(), FinishReasons.CONTENT_FILTER, null,
                        Map.of(), FinishReasons.nativeExtra(block)));
            }
        }
        for (int i = 0; i < list.size(); i++) {
            Object candidate = list.get(i);
            Long index = Json.number(candidate, "index");
            int idx = index == null ? i : index.intValue();
            CandidateState state = candidates.computeIfAbsent(idx, k -> new CandidateState());
            translateParts(candidate, idx, state, out);
            String finish = Json.string(candidate, "finishReason");
            if (finish != null && !state.finished) {
                state.finished = true;
                finishes.add(new ChunkChoice(idx, role(state), null, List.of(),
                        FinishReasons.map(finish, state.toolCalls > 0), null, Map.of(), FinishReasons.nativeExtra(finish)));
            }
        }
        if (!finishes.isEmpty()) {
            Usage u = finished() ? latestUsage : null;
            out.add(new StreamChunk(id, model, created, finishes, u, Map.of(), FrameKind.METADATA));
            if (u != null) {
                emittedUsage = u;
            }
        } else if (finished() && latestUsage != null && !latestUsage.equals(emittedUsage)) {
            // usage that arrives after the last finish reason: a usage-only chunk, as OpenAI sends it
            out.add(new StreamChunk(id, model, created, List.of(), latestUsage, Map.of(), FrameKind.METADATA));
            emittedUsage = latestUsage;
        }
        return out;
    }

    private void translateParts(Object candidate, int idx, CandidateState state, List<StreamChunk> out) {
        StringBuilder run = null;
        boolean runIsThought = false;
        for (Object part : Json.array(Json.object(candidate, "content"), "parts")) {
            Map<String, Object> call = Json.object(part, "functionCall");
            if (call != null) {
                if (run != null) {
                    out.add(textChunk(idx, state, run.toString(), runIsThought));
                    run = null;
                }
                ToolCall tc = GeminiResponseReader.toolCall(call, ids);
                ToolCallDelta delta = new ToolCallDelta(state.toolCalls++, tc.id(), tc.name(), tc.argumentsJson());
                out.add(new StreamChunk(id, model, created,
                        List.of(new ChunkChoice(idx, role(state), null, List.of(delta), null, null)), null, Map.of()));
                continue;
            }
            String text = Json.string(part, "text");
            if (text == null || text.isEmpty()) {
                continue; // e.g. a part holding only a thoughtSignature
            }
            boolean thought = Json.isTrue(part, "thought");
            if (run != null && thought != runIsThought) {
                out.add(textChunk(idx, state, run.toString(), runIsThought));
                run = null;
            }
            if (run == null) {
                run = new StringBuilder(text);
                runIsThought = thought;
            } else {
                run.append(text);
            }
        }
        if (run != null) {
            out.add(textChunk(idx, state, run.toString(), runIsThought));
        }
    }

    private StreamChunk textChunk(int idx, CandidateState state, String text, boolean thought) {
        ChunkChoice choice = thought
                ? new ChunkChoice(idx, role(state), null, List.of(), null, text)
                : new ChunkChoice(idx, role(state), text, List.of(), null, null);
        return new StreamChunk(id, model, created, List.of(choice), null, Map.of());
    }

    /** The role for the candidate's next chunk: assistant on its first chunk only. */
    private static Role role(CandidateState state) {
        if (state.roleSent) {
            return null;
        }
        state.roleSent = true;
        return Role.ASSISTANT;
    }
}
