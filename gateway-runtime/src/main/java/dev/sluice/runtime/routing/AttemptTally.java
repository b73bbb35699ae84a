package dev.sluice.runtime.routing;

/**
 * Counts a request's upstream attempts where they happen (issue 35 §4): the dispatcher tells it of
 * every attempt row it records for the request, so whoever finishes the request reads the count
 * from its own record instead of finding the request again by its id. Must not block.
 */
@FunctionalInterface
public interface AttemptTally {

    /** Counts nothing (requests whose attempts nobody reads: tests, internal calls). */
    AttemptTally NONE = () -> { };

    /** One more attempt of the request was recorded. */
    void attempted();
}
