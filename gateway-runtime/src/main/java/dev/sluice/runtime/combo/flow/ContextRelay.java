package dev.sluice.runtime.combo.flow;

import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.combo.ComboRequest;
import dev.sluice.runtime.combo.Combo;
import dev.sluice.runtime.combo.routing.ComboRouter;
import dev.sluice.runtime.combo.routing.TargetDispatch;
import dev.sluice.runtime.combo.strategy.RelayOptions;
import dev.sluice.runtime.routing.Caller;
import dev.sluice.runtime.routing.Outcome;
import dev.sluice.runtime.routing.Route;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code context-relay} (issue 34): the combo's targets in priority order, through the router as
 * any combo's; each target's dispatch is watched here. When the conversation <em>moves</em> — the
 * target about to be tried is not the one that last served the session's whole conversation (after
 * a shortened one was served, every target is a move until one serves it whole), or an earlier
 * target of this request did not serve — and its estimated input is above {@code relayThreshold} of the new
 * target's context window, the older turns are replaced by a summary written by
 * {@code summaryModel} (routed like a client's request) before the request goes on. Summaries are
 * cached per session ({@link Summaries}). Summarising never fails the request: without a summary
 * the request goes on as it is, unless it is known not to fit the target's window at all, in
 * which case that target is passed over for the next (larger) one.
 *
 * <p>The session is the request's session key (SPEC §10, when affinity is on), else the hash of
 * its prompt prefix (the {@code cache-optimized} rule: a conversation keeps its first turn's).
 */
final class ContextRelay {

    private static final System.Logger LOG = System.getLogger(ContextRelay.class.getName());
    /** Sessions whose last serving target is remembered, at most. */
    static final int MAX_SESSIONS = 16_384;
    /** What a session remembers after a shortened request was served: it matches no target. */
    private static final String RELAYED = "\u0000relayed";
    /** The answer header set when the request was sent with its older turns summarised. */
    static final String RELAYED_HEADER = "X-Sluice-Context-Relay";

    private final ComboRouter router;
    private final ComboRouter.ModelFactsLookup facts;
    private final StepUsage usage;
    private final InstantSource clock;
    private final Summaries summaries;
    private final LinkedHashMap<String, String> lastTarget = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
            return size() > MAX_SESSIONS;
        }
    };

    ContextRelay(ComboRouter router, ComboRouter.ModelFactsLookup facts, StepUsage usage, InstantSource clock) {
        this.router = router;
        this.facts = facts;
        this.usage = usage;
        this.clock = clock;
        this.summaries = new Summaries(clock);
    }

    Outcome run(Combo combo, Caller caller, ChatRequest request, TargetDispatch dispatch, SubRequests sub) {
        ComboRequest known = ComboRouter.facts(request);
        if (request == null || sub == null) {
            return router.run(combo, caller, known, dispatch);
        }
        RelayOptions options = RelayOptions.from(combo.strategyOptions());
        String session = combo.name() + "\n" + (caller.affinity().sessionKey() != null ? "s:" + caller.affinity().sessionKey()
                : "p:" + known.promptPrefixHash());
        String before = last(session);
        boolean[] moved = {false};
        boolean[] relayed = {false};
        Outcome outcome = router.run(combo, caller, known, (route, narrowed) -> {
            String target = route.provider().id() + "/" + route.upstreamModel();
            ChatRequest send = request;
            if (moved[0] || (before != null && !before.equals(target))) {
                Long window = facts.of(route.provider().id(), route.upstreamModel()).contextWindow();
                long input = known.estimatedInputTokens();
                if (window != null && input >= 0 && input > options.relayThreshold() * window) {
                    send = shortened(combo, session, request, options, caller, sub);
                    if (send == null) {
                        Integer max = request.maxTokens();
                        if (input + (max == null ? 0 : max) > window) {
                            // too large for this window, and no summary: the next (larger) target may take it
                            LOG.log(System.Logger.Level.INFO, "combo " + combo.name() + ": no summary, and the request does not fit "
                                    + target + "'s window; trying the next target");
                            moved[0] = true;
                            return new Outcome.NoConnection(route, List.of(), null);
                        }
                        send = request;
                    }
                }
            }
            Outcome out = send == request ? dispatch.dispatch(route, narrowed) : sub.dispatch(send, route, narrowed);
            if (out instanceof Outcome.Served) {
                // a conversation served shortened has moved for good: every target is a move until one serves it whole
                remember(session, send == request ? target : RELAYED);
                relayed[0] = send != request;
            } else {
                moved[0] = true;
            }
            return out;
        });
        return outcome instanceof Outcome.Served s && relayed[0] ? s.withHeader(RELAYED_HEADER, "summarized") : outcome;
    }

    /** The request with its older turns summarised, or null when there is no summary to be had. */
    private ChatRequest shortened(Combo combo, String session, ChatRequest request, RelayOptions options, Caller caller,
            SubRequests sub) {
        Conversation c = Conversation.split(request.messages(), options.keepTurns());
        if (c.older().isEmpty()) {
            return null;
        }
        long hash = c.olderHash();
        String summary = summaries.find(session, hash);
        if (summary == null) {
            if (options.summaryModel().equals(combo.name())) {
                LOG.log(System.Logger.Level.WARNING, "combo " + combo.name() + ": summaryModel names the combo itself; not summarising");
                return null;
            }
            summary = summarise(combo, c, options, caller, sub);
            if (summary == null) {
                return null;
            }
            summaries.put(session, hash, summary);
        }
        return c.shortened(request, summary);
    }

    private String summarise(Combo combo, Conversation c, RelayOptions options, Caller caller, SubRequests sub) {
        long startedAt = clock.millis();
        // the summary is Sluice's own request: no session of its own to pin, the client's lease claim kept
        Caller.Affinity a = caller.affinity();
        Caller asker = caller.withAffinity(new Caller.Affinity(null, a.leaseOwnerHash(), a.leaseGeneration()));
        Outcome outcome;
        try {
            outcome = sub.route(c.summaryRequest(options.summaryModel()), asker);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "combo " + combo.name() + ": the summary request failed: " + e.getMessage());
            return null;
        }
        if (!(outcome instanceof Outcome.Served served)) {
            LOG.log(System.Logger.Level.WARNING, "combo " + combo.name() + ": no summary from " + options.summaryModel() + " ("
                    + Answers.reason(outcome) + "); the request goes on without one");
            return null;
        }
        try (served) {
            usage.count(caller, served, clock.millis() - startedAt);
            String text = Answers.text(served).strip();
            return text.isEmpty() ? null : text;
        }
    }

    private synchronized String last(String session) {
        return lastTarget.get(session);
    }

    private synchronized void remember(String session, String target) {
        lastTarget.put(session, target);
    }
}
