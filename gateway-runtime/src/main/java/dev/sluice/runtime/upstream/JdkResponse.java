package dev.sluice.runtime.upstream;

import dev.sluice.api.upstream.ResponseHead;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Flow;

/** A {@code java.net.http} response as an {@link UpstreamResponse}: its head, and its body as a {@link JdkBodyStream}. */
final class JdkResponse extends BoundedResponse {
    private final JdkBodyStream stream;

    JdkResponse(HttpResponse<Flow.Publisher<List<ByteBuffer>>> res, Duration readTimeout, boolean wholeAnswer, long sentNanos,
            dev.sluice.runtime.io.AnswerBuffers buffers) {
        super(new ResponseHead(res.statusCode(), res.headers().map()), buffers);
        this.stream = new JdkBodyStream(readTimeout);
        res.body().subscribe(stream);
        bound(stream, wholeAnswer, sentNanos, readTimeout.toMillis());
    }

    @Override
    public void close() {
        stream.close();
    }
}
