package dev.sluice.runtime.io;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The gateway's Jackson mappers, with one shared pool of parser and generator buffers (issue 26).
 * Jackson keeps its buffers per thread by default, and every request runs on a virtual thread of
 * its own, so each parser and generator a request made allocated fresh buffers (8 KB of bytes and
 * 4 KB of chars and more) that the next request could not reuse: most of the gateway's allocation
 * per request, and so most of its young collections.
 */
public final class JsonMappers {

    private JsonMappers() {
    }

    /**
     * A mapper whose parsers and generators take their buffers from the shared pool.
     *
     * @return a new mapper
     */
    public static ObjectMapper create() {
        return new ObjectMapper(factory());
    }

    /**
     * A factory whose parsers and generators take their buffers from the shared pool.
     *
     * @return a new factory
     */
    public static JsonFactory factory() {
        return JsonFactory.builder().recyclerPool(JsonRecyclerPools.sharedConcurrentDequePool()).build();
    }
}
