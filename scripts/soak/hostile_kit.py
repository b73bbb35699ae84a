"""What the two flood scripts share (issue 29): hostile_connections.py and hostile_answers.py.

- serve(answer): a loopback upstream on an ephemeral port that reads each request (head, then the
  body its Content-Length names) and hands it to answer(conn, head, body); keep-alive when answer
  returns True, closed otherwise.
- Sluice: the unpacked zip started with its defaults on an ephemeral loopback port, its log and a
  heap dump on OutOfMemoryError (-XX:+HeapDumpOnOutOfMemoryError) in the run's own temp directory,
  which is removed after a passing run and kept (and named) after a failing one.
- call(), rss_mib(), memory_mib(): one request; the resident memory of a process (and its parts).
"""
import glob, json, os, shutil, socket, subprocess, tempfile, threading, time, urllib.error, urllib.request


def read_request(conn, pending=b""):
    """One request from conn: (head, body, what followed it), or None when the peer closed first."""
    data = pending
    while b"\r\n\r\n" not in data:
        d = conn.recv(65536)
        if not d:
            return None
        data += d
    head, _, rest = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    while len(rest) < length:
        d = conn.recv(65536)
        if not d:
            return None
        rest += d
    return head, rest[:length], rest[length:]


def request_path(head):
    """The path of a request head (b"POST /v1/chat/completions HTTP/1.1" -> b"/v1/chat/completions")."""
    return head.split(b" ")[1]


def serve(answer):
    """Starts a loopback upstream; returns its port. answer(conn, head, body) writes the answer and
    returns True to read the next request on the same connection."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(128)

    def handle(c):
        try:
            pending = b""
            while True:
                request = read_request(c, pending)
                if request is None:
                    return
                head, body, pending = request
                if not answer(c, head, body):
                    return
        except OSError:
            pass
        finally:
            c.close()

    def accept():
        while True:
            try:
                c, _ = s.accept()
            except OSError:
                return
            threading.Thread(target=handle, args=(c,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    return s.getsockname()[1]


def call(base, key, path, payload=None, timeout=120, close=False):
    """One request; (status, body). A GET without a payload, else a JSON POST."""
    data = None if payload is None else json.dumps(payload).encode()
    headers = {"Connection": "close"} if close else {}
    if key:
        headers["Authorization"] = "Bearer " + key
    if data is not None:
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(base + path, data=data, method="GET" if data is None else "POST", headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def rss_mib(pid):
    """The resident memory of a process, MiB (0 when it is gone)."""
    return memory_mib(pid)[0]


def memory_mib(pid):
    """(resident, anonymous, file-backed) memory of a process, MiB; zeros when it is gone. The
    file-backed part (the JDK's module image, libjvm, mapped jars) is the same under any load."""
    found = {}
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                key = line.split(":")[0]
                if key in ("VmRSS", "RssAnon", "RssFile"):
                    found[key] = int(line.split()[1]) // 1024
    except OSError:
        pass
    return found.get("VmRSS", 0), found.get("RssAnon", 0), found.get("RssFile", 0)


class Sluice:
    """The unpacked zip, started with its defaults on an ephemeral loopback port; a context manager
    that stops it. bin/sluice execs the JVM, so pid is the JVM's."""

    def __init__(self, home, prefix, **env):
        self.work = tempfile.mkdtemp(prefix=prefix)
        self.admin = "hostile-admin-%d" % os.getpid()
        opts = "-XX:+HeapDumpOnOutOfMemoryError -XX:HeapDumpPath=" + self.work
        extra = os.environ.get("SLUICE_JAVA_OPTS", "")
        environ = dict(os.environ, SLUICE_HOST="127.0.0.1", SLUICE_PORT="0", SLUICE_DATA_DIR=self.work + "/data",
                       SLUICE_ADMIN_KEY=self.admin, SLUICE_JAVA_OPTS=(extra + " " + opts).strip(), **env)
        self.log_path = self.work + "/sluice.log"
        self.process = subprocess.Popen([home + "/bin/sluice"], env=environ, stdout=open(self.log_path, "w"),
                                        stderr=subprocess.STDOUT)
        self.pid = self.process.pid
        self.base = None
        for _ in range(600):
            time.sleep(0.1)
            text = self.log()
            if "Sluice listening on " in text:
                self.base = text.split("Sluice listening on ")[1].split()[0]
                break

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    def log(self):
        with open(self.log_path) as f:
            return f.read()

    def out_of_memory(self):
        return "OutOfMemoryError" in self.log()

    def heap_dumps(self):
        return glob.glob(os.path.join(self.work, "*.hprof"))

    def admin_call(self, path, payload):
        return call(self.base, self.admin, path, payload, timeout=30)

    def add_connection(self, name, port):
        """An OpenAI-compatible connection named name to the loopback upstream on port."""
        return self.admin_call("/api/providers", {"provider": name, "authType": "apikey", "apiKey": "sk-hostile-0123456789",
                                                  "baseUrl": "http://127.0.0.1:%d/v1" % port})

    def add_key(self, name):
        return json.loads(self.admin_call("/api/keys", {"name": name})[1])["key"]

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def finish(self, passed):
        """After the run: the work directory removed when it passed, else kept and named (log, heap dumps)."""
        self.stop()
        if passed:
            shutil.rmtree(self.work, ignore_errors=True)
        else:
            print("kept for diagnosis: log %s%s" % (self.log_path, "".join("; heap dump " + d for d in self.heap_dumps())))
