"""Idle-connection flood against the built zip (issue 29, point 1): the zip with its defaults
(bin/sluice: -XX:+UseSerialGC -Xmx192m -Xmn32m) while a client holds a few thousand connections that
never send a byte (reopening each one the server closes) plus some that trickle one header line every
few seconds. Once a second it asks /health/live and a routed chat completion (a loopback mock
upstream) on fresh connections; every answer must be a 200. Then it closes the flood and checks that
the server's file descriptors and its heap after a full GC return to their baseline. A second stage
holds 1000 silent connections and some trickling heads below the cap: it reports their heap per
connection and checks they are closed at the first-byte (10 s) and head (30 s) timeouts. Prints a
result line (and one line of the second stage);
exit 1 on a failed check, 2 when it cannot run.

Usage: python3 hostile_connections.py <unpacked zip home> [idle connections] [seconds]"""
import json, os, re, resource, selectors, signal, socket, subprocess, sys, time

sys.dont_write_bytecode = True  # no __pycache__ in the checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostile_kit import Sluice, call as kit_call, rss_mib, serve  # noqa: E402

HOME = sys.argv[1]
IDLE = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
SECONDS = int(sys.argv[3]) if len(sys.argv) > 3 else 45
TRICKLE = 50
TRICKLE_EVERY = 5.0
HEAD_TIMEOUT = 30.0
FIRST_BYTE_TIMEOUT = 10.0
BELOW_CAP = 1000
ANSWER = json.dumps({"id": "c", "object": "chat.completion", "created": 1, "model": "m",
                     "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
                     "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()


def upstream():
    """A loopback upstream answering every request with a small completion, on a kept-alive connection."""

    def answer(c, _head, _body):
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(ANSWER) + ANSWER)
        return True

    return serve(answer)


def call(base, key, path, payload=None, timeout=10):
    """A request on a fresh connection that the client closes (the flood counts the server's descriptors)."""
    return kit_call(base, key, path, payload, timeout=timeout, close=True)


def fds(pid):
    try:
        return len(os.listdir("/proc/%d/fd" % pid))
    except OSError:
        return -1


def closed_by_peer(s):
    """Whether the server closed this connection (end of stream or reset), without waiting."""
    try:
        s.setblocking(False)
        return s.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def heap_after_gc_mib(pid):
    kib = heap_after_gc_kib(pid)
    return kib // 1024 if kib >= 0 else -1


def heap_after_gc_kib(pid):
    """Heap used after a full GC (jcmd of the JDK that runs the zip), MiB; -1 when jcmd fails."""
    jcmd = os.path.join(os.environ.get("JAVA_HOME", ""), "bin", "jcmd")
    try:
        subprocess.run([jcmd, str(pid), "GC.run"], capture_output=True, timeout=30, check=True)
        out = subprocess.run([jcmd, str(pid), "GC.heap_info"], capture_output=True, timeout=30, check=True, text=True).stdout
    except (OSError, subprocess.SubprocessError):
        return -1
    used = [int(k) for k in re.findall(r"total \d+K, used (\d+)K", out)]
    return sum(used) if used else -1


def main():
    # timeout(1) ends a run with SIGTERM: leave through the finally that stops the server
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(3))
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if hard < IDLE + TRICKLE + 256:
        print("hostile-connections: cannot run: open-file limit %d is below %d connections" % (hard, IDLE + TRICKLE))
        return 2
    sluice = Sluice(HOME, "sluice-conn-flood.", SLUICE_ACCESS_LOG="off")
    flood = []
    failures = ["did not finish"]
    try:
        base = sluice.base
        if not base:
            print("hostile-connections: cannot run: Sluice did not start; see " + sluice.log_path)
            return 2
        pid = sluice.pid
        host, port = base.rsplit("/", 1)[1].rsplit(":", 1)
        port = int(port)
        sluice.add_connection("mock", upstream())
        key = sluice.add_key("flood")
        chat = {"model": "mock/m", "messages": [{"role": "user", "content": "hi"}]}
        for _ in range(3):
            call(base, key, "/v1/chat/completions", chat)
            call(base, None, "/health/live")
        time.sleep(1)
        base_fds, base_heap = fds(pid), heap_after_gc_mib(pid)

        sel = selectors.DefaultSelector()
        reopened = [0]

        def open_one():
            s = socket.socket()
            s.setblocking(False)
            s.connect_ex(("127.0.0.1", port))
            sel.register(s, selectors.EVENT_READ)
            flood.append(s)

        for _ in range(IDLE):
            open_one()
        trickle = []
        t0 = time.time()
        for i in range(TRICKLE):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"GET /health/live HTTP/1.1\r\n")
            trickle.append([s, time.time(), None, time.time()])
        results, peak_fds, peak_rss = [], 0, 0
        next_probe = time.time()
        while time.time() - t0 < SECONDS:
            # the attacker reopens every connection the server closed, so IDLE stay pending at all times
            for k, _ in sel.select(timeout=0.2):
                s = k.fileobj
                sel.unregister(s)
                s.close()
                flood.remove(s)
                reopened[0] += 1
                open_one()
            now = time.time()
            for t in trickle:
                if t[2] is None and now - t[1] >= 0:
                    try:
                        t[0].setblocking(False)
                        if t[0].recv(1) == b"":
                            t[2] = now - t[1]
                    except BlockingIOError:
                        pass
                    except OSError:
                        t[2] = now - t[1]
                    if t[2] is None and now - t[3] >= TRICKLE_EVERY:
                        t[3] = now
                        try:
                            t[0].send(b"X-Slow: y\r\n")
                        except OSError:
                            t[2] = now - t[1]
            if now >= next_probe:
                next_probe = now + 1
                for path, payload, k in (("/health/live", None, None), ("/v1/chat/completions", chat, key)):
                    p0 = time.time()
                    try:
                        status = call(base, k, path, payload)[0]
                    except Exception:
                        status = 0
                    results.append((path, status, time.time() - p0))
                peak_fds, peak_rss = max(peak_fds, fds(pid)), max(peak_rss, rss_mib(pid))
        for s in flood:
            s.close()
        flood.clear()
        for t in trickle:
            t[0].close()
        deadline = time.time() + 20
        while time.time() < deadline and fds(pid) > base_fds + 5:
            time.sleep(0.5)
        after_fds = fds(pid)
        after_heap = heap_after_gc_mib(pid)
        after = [call(base, None, "/health/live")[0], call(base, key, "/v1/chat/completions", chat)[0]]
        oom = sluice.out_of_memory()

        # below the cap, nothing makes room: silent connections end at the first-byte timeout, trickling heads at the head timeout
        quiet = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(BELOW_CAP)]
        slow = []
        for _ in range(TRICKLE):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"GET /health/live HTTP/1.1\r\n")
            slow.append([s, time.time(), None, time.time()])
        flood.extend(quiet)
        q0 = time.time()
        time.sleep(1)
        per_conn_kib = (heap_after_gc_kib(pid) - base_heap * 1024) / float(BELOW_CAP + TRICKLE)
        quiet_closed = {}
        while time.time() - q0 < HEAD_TIMEOUT + 3 and (len(quiet_closed) < len(quiet) or any(t[2] is None for t in slow)):
            now = time.time()
            for i, s in enumerate(quiet):
                if i not in quiet_closed and closed_by_peer(s):
                    quiet_closed[i] = now - q0
            for t in slow:
                if t[2] is None and closed_by_peer(t[0]):
                    t[2] = now - t[1]
                elif t[2] is None and now - t[3] >= TRICKLE_EVERY:
                    t[3] = now
                    try:
                        t[0].send(b"X-Slow: y\r\n")
                    except OSError:
                        t[2] = now - t[1]
            time.sleep(0.2)
        for s in quiet:
            s.close()
        for t in slow:
            t[0].close()
        deadline = time.time() + 20
        while time.time() < deadline and fds(pid) > base_fds + 5:
            time.sleep(0.5)
        quiet_fds = fds(pid)
        slow_closed = [t[2] for t in slow if t[2] is not None]

        health = [r for r in results if r[0] == "/health/live"]
        routed = [r for r in results if r[0] != "/health/live"]
        ok = lambda rs: sum(1 for r in rs if r[1] == 200)
        closed = [t[2] for t in trickle if t[2] is not None]
        failures = []
        if ok(health) != len(health) or ok(routed) != len(routed) or after != [200, 200]:
            failures.append("unanswered requests")
        if len(closed) != len(trickle) or max(closed) > HEAD_TIMEOUT + 5:
            failures.append("trickling heads not closed by %.0f s" % (HEAD_TIMEOUT + 5))
        if after_fds > base_fds + 5:
            failures.append("fds not released")
        if base_heap < 0 or after_heap < 0 or after_heap > base_heap + 16:
            failures.append("heap not back to baseline")
        if len(quiet_closed) != len(quiet) or max(quiet_closed.values()) > FIRST_BYTE_TIMEOUT + 3:
            failures.append("silent connections not closed by %.0f s" % (FIRST_BYTE_TIMEOUT + 3))
        if len(slow_closed) != len(slow) or min(slow_closed) < HEAD_TIMEOUT - 1 or max(slow_closed) > HEAD_TIMEOUT + 3:
            failures.append("trickling heads not closed at %.0f s" % HEAD_TIMEOUT)
        if quiet_fds > base_fds + 5:
            failures.append("fds not released below the cap")
        if oom:
            failures.append("OutOfMemoryError in the log")
        print("hostile-connections: %s - %d idle (+%d trickling) for %d s, %d reopened after the server closed them;"
              " health %d/%d, routed %d/%d (slowest %.2f s); trickling heads closed at %s s; server fds baseline %d, peak %d, after %d;"
              " heap after GC baseline %d MiB, after %d MiB; peak RSS %d MiB; OutOfMemoryError: %s"
              % ("FAIL (" + ", ".join(failures) + ")" if failures else "PASS", IDLE, TRICKLE, SECONDS, reopened[0],
                 ok(health), len(health), ok(routed), len(routed), max(r[2] for r in results) if results else 0,
                 "%.1f-%.1f" % (min(closed), max(closed)) if closed else "never", base_fds, peak_fds, after_fds,
                 base_heap, after_heap, peak_rss, "yes" if oom else "no"))
        print("  below the cap: %d silent + %d trickling, %.1f KiB of heap each; silent closed at %.1f-%.1f s, trickling heads at %s s;"
              " server fds after %d" % (BELOW_CAP, TRICKLE, per_conn_kib,
                                        min(quiet_closed.values()) if quiet_closed else -1, max(quiet_closed.values()) if quiet_closed else -1,
                                        "%.1f-%.1f" % (min(slow_closed), max(slow_closed)) if slow_closed else "never", quiet_fds))
        return 1 if failures else 0
    finally:
        for s in flood:
            s.close()
        sluice.finish(not failures)


if __name__ == "__main__":
    sys.exit(main())
