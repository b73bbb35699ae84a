package dev.sluice.runtime.routing;

/** A client's body in the upstream's dialect, which each tried route gets with its own model id. */
@FunctionalInterface
public interface PassthroughBody {

    /**
     * The body to send.
     *
     * @param upstreamModel the route's upstream model id
     * @return the body with that model
     */
    byte[] forModel(String upstreamModel);
}
