package dev.sluice.runtime.routing;

import static java.util.Objects.requireNonNull;

import dev.sluice.runtime.combo.Combo;
import dev.sluice.runtime.resilience.classify.AttemptFailure;
import dev.sluice.runtime.resilience.gate.ConnectionGates;
import dev.sluice.runtime.resilience.classify.Verdict;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.stream.StreamEnding;
import java.util.List;

/**
 * What a request produced: the one result type of the pipeline, from the attempt loop through
 * combos to the HTTP layer, which renders it once per client protocol. A {@link Served} outcome
 * holds its admission {@link Lease} and must be closed once its answer is written (a stream: to its
 * last event); every other outcome holds nothing.
 */
public sealed interface Outcome {

    /**
     * The route of the served or last tried target, or null when nothing was tried.
     *
     * @return the route, or null
     */
    Route route();

    /**
     * A connection served the request.
     *
     * @param route the route that served
     * @param connection the connection that served
     * @param reply what it served
     * @param lease the admission the answer holds until written
     * @param headers answer headers a combo executor adds (issue 34: {@code X-Sluice-Fusion-Failed}), by name
     */
    record Served(Route route, Connection connection, Reply reply, Lease lease, java.util.Map<String, String> headers)
            implements Outcome, AutoCloseable {
        /** Validates and copies. */
        public Served {
            requireNonNull(route, "route is null");
            requireNonNull(connection, "connection is null");
            requireNonNull(reply, "reply is null");
            requireNonNull(lease, "lease is null");
            headers = headers == null ? java.util.Map.of() : java.util.Map.copyOf(headers);
        }

        /**
         * A served answer without headers of its own.
         *
         * @param route the route that served
         * @param connection the connection that served
         * @param reply what it served
         * @param lease the admission the answer holds until written
         */
        public Served(Route route, Connection connection, Reply reply, Lease lease) {
            this(route, connection, reply, lease, java.util.Map.of());
        }

        /**
         * The same answer (and the same admission: close only the copy) with one more header.
         *
         * @param name the header's name
         * @param value its value
         * @return the copy
         */
        public Served withHeader(String name, String value) {
            java.util.Map<String, String> h = new java.util.LinkedHashMap<>(headers);
            h.put(name, value);
            return new Served(route, connection, reply, lease, h);
        }

        /**
         * Records how the served stream ended (counters; a stall on the connection, CC-5). Call it
         * once, before {@link #close()}.
         *
         * @param ending how it ended
         * @param message what happened
         */
        public void streamEnded(StreamEnding ending, String message) {
            lease.streamEnded(ending, message);
        }

        /**
         * Returns the admission (connection and model permits, the breaker's probe, the combo's
         * in-flight count) and closes what the reply still holds open upstream. Idempotent.
         */
        @Override
        public void close() {
            if (lease.isClosed()) {
                return;
            }
            try {
                Reply.closeUpstream(reply);
            } finally {
                lease.close();
            }
        }
    }

    /** An outcome that served nothing and holds nothing. */
    sealed interface Unserved extends Outcome {
        /**
         * How the combo that ran the request ended, or null when it named no combo.
         *
         * @return the combo's trail, or null
         */
        ComboTrail combo();

        /**
         * The same outcome, as a combo's.
         *
         * @param trail the combo's trail
         * @return the copy
         */
        Unserved inCombo(ComboTrail trail);
    }

    /**
     * The local admission in front of the connections refused it (SPEC §12, §14): a queue was
     * full, a wait ran out, or the client left while waiting. Nothing was sent upstream for it.
     *
     * @param route the route
     * @param refusal why (the error code)
     * @param retryAfterMs when trying again may help, ms (0: unknown)
     * @param connection the connection whose gate refused last
     * @param combo the combo's trail, or null
     */
    record Refused(Route route, ConnectionGates.Refusal refusal, long retryAfterMs, Connection connection, ComboTrail combo)
            implements Unserved {
        @Override
        public Refused inCombo(ComboTrail trail) {
            return new Refused(route, refusal, retryAfterMs, connection, trail);
        }

        /** @return whether the client left while the request waited */
        public boolean clientGone() {
            return refusal == ConnectionGates.Refusal.CLIENT_DISCONNECTED;
        }
    }

    /**
     * Nothing to run and no timer involved (SPEC CO-5 {@code no_executable_targets}): the provider
     * has no enabled connection the caller may use, or every one is terminal.
     *
     * @param route the route, or null (a combo none of whose targets ran)
     * @param excluded connections held back without a timer (terminal states)
     * @param combo the combo's trail, or null
     */
    record NoConnection(Route route, List<ConnectionSelector.Excluded> excluded, ComboTrail combo) implements Unserved {
        /** Copies. */
        public NoConnection {
            excluded = List.copyOf(excluded);
        }

        @Override
        public NoConnection inCombo(ComboTrail trail) {
            return new NoConnection(route, excluded, trail);
        }
    }

    /**
     * Every eligible connection is held back, at least one by a resilience timer (CO-5).
     *
     * @param route the route, or null (a combo none of whose targets ran)
     * @param retryAfterMs ms until the first timer ends
     * @param excluded every held-back connection and the mechanism that held it
     * @param combo the combo's trail, or null
     */
    record CoolingDown(Route route, long retryAfterMs, List<ConnectionSelector.Excluded> excluded, ComboTrail combo) implements Unserved {
        /** Copies. */
        public CoolingDown {
            excluded = List.copyOf(excluded);
        }

        @Override
        public CoolingDown inCombo(ComboTrail trail) {
            return new CoolingDown(route, retryAfterMs, excluded, trail);
        }
    }

    /**
     * Every attempt failed, or one failed with a verdict that forbids fallback.
     *
     * @param route the route of the last attempt
     * @param failure the last failure (after status restatement)
     * @param verdict its verdict
     * @param connection the connection of the last attempt
     * @param attempts attempts made
     * @param clientRetryAfterMs the {@code Retry-After} a status restatement tells the client
     *     (RS-3), or null to use the verdict's hint
     * @param combo the combo's trail, or null
     */
    record Failed(Route route, AttemptFailure failure, Verdict verdict, Connection connection, int attempts, Long clientRetryAfterMs,
            ComboTrail combo) implements Unserved {
        /** Validates. */
        public Failed {
            requireNonNull(route, "route is null");
            requireNonNull(failure, "failure is null");
            requireNonNull(verdict, "verdict is null");
            requireNonNull(connection, "connection is null");
        }

        @Override
        public Failed inCombo(ComboTrail trail) {
            return new Failed(route, failure, verdict, connection, attempts, clientRetryAfterMs, trail);
        }
    }

    /**
     * The request names nothing Sluice can route.
     *
     * @param model the model the client named
     * @param why what is missing
     * @param detail what is missing: the provider id ({@link Why#NO_EMBEDDINGS}), the route and its
     *     tool limit ({@link Why#TOOL_LIMIT}), or null
     */
    record Unroutable(String model, Why why, String detail) implements Unserved {
        /** What is missing. */
        public enum Why {
            /** No provider serves the model (API-6 {@code model_not_found}). */
            MODEL_NOT_FOUND,
            /** The model's provider serves no embeddings. */
            NO_EMBEDDINGS,
            /** The request has more tools than the route's upstream takes (OF-2); {@code provider} names it. */
            TOOL_LIMIT,
            /** A managed request's lease generation is no longer the owner's active one (SPEC SL-3): nothing was sent. */
            LEASE_FENCE_STALE,
            /**
             * The body cannot be translated through the canonical model and no connection of the
             * route passes it through (issue 32): the client's 400 naming what cannot be translated.
             */
            UNTRANSLATABLE,
            /**
             * Issue 34: every target of the combo is too small for the request (the strategy held each
             * back for {@code context_length_exceeded}); {@code detail} says how large the request is.
             */
            CONTEXT_LENGTH_EXCEEDED,
            /** Issue 34: the combo's strategy held back every target for this request; {@code detail} names the reasons. */
            HELD_BY_STRATEGY,
            /** Issue 33: the key may not ask for this model (its {@code allowedModels}); nothing was sent. */
            MODEL_NOT_ALLOWED
        }

        /** Nothing was routed. */
        @Override
        public Route route() {
            return null;
        }

        @Override
        public ComboTrail combo() {
            return null;
        }

        @Override
        public Unroutable inCombo(ComboTrail trail) {
            return this;
        }
    }

    /**
     * How a combo request ended (CO-4, CO-5).
     *
     * @param combo the combo
     * @param held when nothing was tried: how the targets were held back
     * @param decidedAt when the outcome was decided, epoch ms (the base of a {@code reset_at})
     */
    record ComboTrail(Combo combo, Held held, long decidedAt) {
        /** Validates. */
        public ComboTrail {
            requireNonNull(combo, "combo is null");
            requireNonNull(held, "held is null");
        }
    }

    /** How every target of a combo was held back before dispatch (CO-4, CO-5). */
    enum Held {
        /** Something was tried, or nothing to say. */
        NONE,
        /** Only short transient cooldowns or lockouts, too long (or too many) to wait for: 429 {@code rate_limit_error}. */
        RATE_LIMITED,
        /** Only quota, auth or not-found locks: 503 {@code ALL_TARGETS_SKIPPED}, no hint. */
        SKIPPED
    }
}
