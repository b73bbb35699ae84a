package dev.sluice.runtime.upstream;

import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.UpstreamResponse;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Flow;

/** A {@code java.net.http} response as an {@link UpstreamResponse}: its head, and its body as a {@link JdkBodyStream}. */
final class JdkResponse implements UpstreamResponse {
    private final ResponseHead head;
    private final JdkBodyStream stream;
    private final InputStream body;
    private final dev.sluice.runtime.io.AnswerBuffers buffers;

    JdkResponse(HttpResponse<Flow.Publisher<List<ByteBuffer>>> res, Duration readTimeout, boolean wholeAnswer, long sentNanos,
            dev.sluice.runtime.io.AnswerBuffers buffers) {
        this.buffers = buffers;
        this.head = new ResponseHead(res.statusCode(), res.headers().map());
        this.stream = new JdkBodyStream(readTimeout);
        res.body().subscribe(stream);
        // a whole answer arrives within its bounds (issues 19, 28); a stream is bounded in all (issue 29)
        this.body = wholeAnswer ? buffers.watch().watch(stream, sentNanos, readTimeout.toMillis(), stream::close) : buffers.streamed(stream);
    }

    @Override
    public ResponseHead head() {
        return head;
    }

    @Override
    public InputStream body() {
        return body;
    }

    @Override
    public byte[] wholeBody() throws java.io.IOException {
        return buffers.read(this);
    }

    @Override
    public int maxEventBytes() {
        return buffers.maxEventBytes();
    }

    @Override
    public void close() {
        stream.close();
    }
}
