/** Server-sent-event framing with the gateway's 4 MiB bound per event ({@link dev.sluice.toolkit.sse.SseEventReader}). */
package dev.sluice.toolkit.sse;
