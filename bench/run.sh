#!/usr/bin/env bash
# Sluice load benchmark (SPEC §19 NF-1 / NF-2): direct-to-mock versus through-nginx (the control:
# what any proxy hop costs on this machine right now) versus through-Sluice, side by side in one run,
# on loopback (127.0.0.1) only, in interleaved rounds. See docs/performance.md.
#
#   bench/run.sh                          # needs a built tree: mvn -B -DskipTests package
#   BENCH_DURATION=30s bench/run.sh       # longer measurements
#   bench/run.sh --quick                  # ≈ 1–2 minutes: one short round, same targets, and
#                                         # the regression guard (exit status 4) for CI
#
# Every measured run also counts the CPU the processes under test used (issue 26): the Sluice JVM
# (utime+stime from /proc/<pid>/stat, and per thread group from /proc/<pid>/task/*/stat), nginx's
# worker and the mock upstream, divided by the requests served (streams: by the events relayed).
#
# Environment knobs (defaults in brackets; --quick changes the defaults marked "quick:", an
# exported value still wins):
#   BENCH_DURATION [10s; quick: 4s]  length of every measured wrk run
#   BENCH_WARMUP [5s; quick: 2s]     wrk warm-up per target (at the high concurrency), not measured
#   BENCH_SLUICE_WARMUP [BENCH_WARMUP; quick: 12s]  the warm-up of Sluice (and shared Sluice): its
#                               JIT needs longer than the mock's and nginx's
#   BENCH_CONCURRENCY [64]      the high concurrency (the low one is always 1)
#   BENCH_ROUNDS [3; quick: 1]  interleaved rounds of direct / nginx / Sluice at c1 and at the high
#                               concurrency; the report gives the median of the rounds
#   BENCH_WRK_THREADS [2]       wrk threads at the high concurrency (1 at concurrency 1)
#   BENCH_STREAM_N [200; quick: 20]  sequential streaming requests per target for TTFB
#   BENCH_STREAM_WARMUP_N [20; quick: 5]  streaming requests per target before the TTFB measurement
#   BENCH_STREAM_JIT_WARMUP_N [15000]  streams through Sluice from a mock without delays before those
#                               (BENCH_STREAM_JIT_WARMUP_C curls at once, ~5-10 s): the streaming code's JIT
#                               warm-up, as the c1/c64 runs' warm-up gives the non-streaming path its own
#                               (hundreds of thousands of requests). 2000 left the code only streams run
#                               in C1 (0.6-1 ms of Sluice's share of the first content token, issue 26, docs/performance.md);
#                               0 turns it off
#   BENCH_STREAM_JIT_WARMUP_C [4]  curls streaming at once in that warm-up
#   BENCH_STREAM_PIECES [5]     content pieces per mock stream
#   BENCH_STREAM_DELAY_MS [20; quick: 5]  delay between mock stream events
#   BENCH_IDLE_SECONDS [5; quick: 2]  idle time before the idle RSS sample
#   BENCH_CPU_SETTLE [0.5]      seconds after each measured run before its CPU is read, so that
#                               work the run queued (the writers' backlog) is counted in it
#   BENCH_MOCK [java]           the mock upstreams: java (gateway-testkit's MockUpstreamMain) or node
#                               (bench/mock-upstream.js, node's built-in http only: issue 26's method);
#                               both answer the same bytes; the report says which one ran
#   BENCH_MOCK_JAVA_OPTS [-XX:+UseSerialGC -Xmx256m]  JVM options of the Java mock upstreams
#   BENCH_SLUICE_ZIP [distribution/target/sluice-0.1.0-SNAPSHOT.zip]
#   BENCH_SLUICE_HOME []        an already unpacked distribution (instead of the zip)
#   BENCH_SLUICE_ZIP_B []       a second distribution zip ("B", e.g. the build before a change): a
#                               second single-instance Sluice from it (own data dir, free port) is
#                               measured in every round exactly like the first ("A": c1, c64, streams,
#                               CPU per request and per thread group, RSS), and the report adds both
#                               side by side and a short A/B table; the targets and the guard judge A only
#   BENCH_A_LABEL [A] / BENCH_B_LABEL [B]  the names of the two in the report (with BENCH_SLUICE_ZIP_B)
#   BENCH_TESTKIT_JAR [gateway-testkit/target/sluice-testkit-0.1.0-SNAPSHOT.jar]  (BENCH_MOCK=java)
#   BENCH_RESULTS [bench/results/latest.md]  where the Markdown report goes (raw log next to it)
#   BENCH_START_TIMEOUT [60]    seconds to wait for each process to report its port
#   BENCH_NGINX [nginx]         the nginx binary of the control (Debian's nginx-light is installed
#                               with apt-get when there is none)
#   BENCH_KEEP_TMP [0]          1 keeps the temporary directory (logs, data dir)
#   BENCH_QUIET_WAIT [0]        before the run and before every measurement, wait up to this many
#                               seconds for the machine to be quiet (other processes < 10 % CPU
#                               over 3 s); the report shows the CPU other processes used during
#                               every measurement either way (with 0, only the start is sampled)
#   BENCH_SHARED [0]            1 adds a fourth target, "sluice-shared" (issue 20): a second Sluice
#                               from the same distribution in shared mode, on a throwaway PostgreSQL
#                               (initdb + pg_ctl, as user postgres when run as root) and a
#                               redis-server (no persistence), both started here on free loopback
#                               ports and stopped at the end; it is measured in every round beside
#                               the others (both Sluice processes run during the whole run and share
#                               the CPUs), and the report adds its rows, its CPU and the issue-26
#                               shared-mode targets (shared added p50 at c1 minus single-instance
#                               added p50 <= 0.1 ms; c64 req/s >= 0.8 x single instance's).
#                               Debian's postgresql / redis-server are installed with apt-get when
#                               missing (as root), else the run stops with status 2
#   BENCH_POSTGRES_BIN []       folder of initdb and pg_ctl (default: the newest
#                               /usr/lib/postgresql/*/bin, else the PATH); only with BENCH_SHARED=1
#   BENCH_REDIS_SERVER [redis-server]  the redis-server binary; only with BENCH_SHARED=1
#
# Output: a Markdown report on stdout and in BENCH_RESULTS, with the issue-26 targets as PASS/FAIL
# lines (with BENCH_SHARED=1 also the shared-mode targets and section) and the regression guard;
# wrk/curl raw output and the logs of Sluice, nginx and the mocks in the .log file next to it.
#
# Exit status: 0 = valid run (targets may still be missed: read the report), 3 = invalid run
# (wrk saw errors or non-2xx answers, or a streaming request failed), 4 = valid run that trips the
# regression guard (Sluice's CPU per request above 4 x the 100 µs target, or its c64 throughput
# below 0.1 x nginx's, in this run), 2 = setup failure or a mock/Sluice (with BENCH_SHARED=1 also
# PostgreSQL or Redis) exited during the run (then the report file says the run did not complete).
# -E: the ERR trap below also reports a command failing inside a function (else errexit would
# end the run there without a word)
set -Eeuo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
JAVA="$JAVA_HOME/bin/java"

QUICK=0
for arg in "$@"; do
    case $arg in
        --quick) QUICK=1 ;;
        -h | --help) sed -n '2,/^set -Eeuo/p' "${BASH_SOURCE[0]}" | sed '$d' >&2; exit 0 ;;
        *) echo "unknown argument '$arg' (usage: bench/run.sh [--quick])" >&2; exit 2 ;;
    esac
done
# quick DEFAULT QUICK_DEFAULT: the default of a knob, in the mode of this run
quick() { if ((QUICK)); then echo "$2"; else echo "$1"; fi; }

DURATION=${BENCH_DURATION:-$(quick 10s 4s)}
WARMUP=${BENCH_WARMUP:-$(quick 5s 2s)}
SLUICE_WARMUP=${BENCH_SLUICE_WARMUP:-$(quick "$WARMUP" 12s)}
HIGH_C=${BENCH_CONCURRENCY:-64}
ROUNDS=${BENCH_ROUNDS:-$(quick 3 1)}
NGINX=${BENCH_NGINX:-nginx}
WRK_THREADS=${BENCH_WRK_THREADS:-2}
STREAM_N=${BENCH_STREAM_N:-$(quick 200 20)}
STREAM_WARMUP_N=${BENCH_STREAM_WARMUP_N:-$(quick 20 5)}
STREAM_JIT_WARMUP_N=${BENCH_STREAM_JIT_WARMUP_N:-15000}
STREAM_JIT_WARMUP_C=${BENCH_STREAM_JIT_WARMUP_C:-4}
STREAM_PIECES=${BENCH_STREAM_PIECES:-5}
STREAM_DELAY_MS=${BENCH_STREAM_DELAY_MS:-$(quick 20 5)}
IDLE_SECONDS=${BENCH_IDLE_SECONDS:-$(quick 5 2)}
CPU_SETTLE=${BENCH_CPU_SETTLE:-0.5}
MOCK=${BENCH_MOCK:-java}
MOCK_JAVA_OPTS=${BENCH_MOCK_JAVA_OPTS:--XX:+UseSerialGC -Xmx256m}
SLUICE_ZIP=${BENCH_SLUICE_ZIP:-$ROOT/distribution/target/sluice-0.1.0-SNAPSHOT.zip}
SLUICE_HOME_DIR=${BENCH_SLUICE_HOME:-}
SLUICE_ZIP_B=${BENCH_SLUICE_ZIP_B:-}
A_LABEL=${BENCH_A_LABEL:-A}
B_LABEL=${BENCH_B_LABEL:-B}
TESTKIT_JAR=${BENCH_TESTKIT_JAR:-$ROOT/gateway-testkit/target/sluice-testkit-0.1.0-SNAPSHOT.jar}
RESULTS=${BENCH_RESULTS:-$BENCH_DIR/results/latest.md}
START_TIMEOUT=${BENCH_START_TIMEOUT:-60}
KEEP_TMP=${BENCH_KEEP_TMP:-0}
QUIET_WAIT=${BENCH_QUIET_WAIT:-0}
SHARED=${BENCH_SHARED:-0}
POSTGRES_BIN=${BENCH_POSTGRES_BIN:-}
REDIS_SERVER=${BENCH_REDIS_SERVER:-redis-server}
[[ $SHARED == 0 || $SHARED == 1 ]] || { echo "BENCH_SHARED must be 0 or 1, not '$SHARED'" >&2; exit 2; }
[[ $MOCK == java || $MOCK == node ]] || { echo "BENCH_MOCK must be java or node, not '$MOCK'" >&2; exit 2; }

HOST=127.0.0.1 # loopback only, everywhere

log() { printf '[bench %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 2; }

# ---------------------------------------------------------------------------------------------
# Process bookkeeping: every process started here is stopped on exit, also on error.
# ---------------------------------------------------------------------------------------------
PIDS=()
NGINX_PID=    # the nginx master (the control proxy), once started
NGINX_PIDS=() # its master and worker: stopped by stop_nginx, counted as our CPU
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sluice-bench.XXXXXX")
PG_DIR=       # BENCH_SHARED=1: the throwaway PostgreSQL's folder, once initialised
PG_PID=       # its postmaster, once started (pg_ctl daemonises it: not in PIDS)
PG_AS=()      # the prefix that runs its binaries (runuser -u postgres -- when run as root)

# Stops the throwaway PostgreSQL (BENCH_SHARED=1): immediately, its data is thrown away anyway.
stop_postgres() {
    [[ -n $PG_DIR && -f $PG_DIR/data/postmaster.pid ]] || return 0
    "${PG_AS[@]}" "$POSTGRES_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w -t 20 stop >/dev/null 2>&1 || {
        log "pg_ctl stop failed: killing the postmaster"
        if [[ -n $PG_PID ]]; then kill -KILL "$PG_PID" 2>/dev/null || true; fi
    }
    PG_PID=
}

# Stops the nginx control: TERM to the master (a fast shutdown that also stops its worker), then
# KILL to whatever of master and worker is left, so that no worker outlives the run as an orphan.
stop_nginx() {
    local pid
    [[ -n $NGINX_PID ]] || return 0
    kill -TERM "$NGINX_PID" 2>/dev/null || true
    for _ in $(seq 1 25); do # up to 5 s
        kill -0 "$NGINX_PID" 2>/dev/null || break
        sleep 0.2
    done
    for pid in "${NGINX_PIDS[@]}" "$NGINX_PID"; do
        # (only if the pid is still an nginx: a worker that already exited may have a successor)
        if [[ $(cat "/proc/$pid/comm" 2>/dev/null) == nginx ]]; then
            log "nginx process $pid did not stop on TERM: killing it"
            kill -KILL "$pid" 2>/dev/null || true
        fi
    done
    wait "$NGINX_PID" 2>/dev/null || true
    NGINX_PID=
}

cleanup() {
    local rc=$? pid i
    trap - EXIT INT TERM HUP
    trap '' PIPE # the reader of our output may be gone: still stop every process
    stop_nginx
    for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
        pid=${PIDS[i]}
        kill -TERM "$pid" 2>/dev/null || true
    done
    for _ in $(seq 1 50); do # up to 10 s for a graceful stop
        local alive=0
        for pid in "${PIDS[@]}"; do
            if kill -0 "$pid" 2>/dev/null; then alive=1; fi
        done
        ((alive)) || break
        sleep 0.2
    done
    for pid in "${PIDS[@]}"; do
        if kill -0 "$pid" 2>/dev/null; then
            log "process $pid did not stop on TERM: killing it"
            kill -KILL "$pid" 2>/dev/null || true
        fi
    done
    wait 2>/dev/null || true
    stop_postgres
    if [[ $KEEP_TMP == 1 ]]; then
        log "kept temporary directory $TMP"
    else
        rm -rf "$TMP"
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'log "command failed (status $?) at line $LINENO: $BASH_COMMAND"' ERR
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
trap 'exit 141' PIPE

# Waits until FILE has a line matching the sed expression that prints the port; sets WAITED_PORT.
wait_for_port() {
    local file=$1 sed_expr=$2 pid=$3 what=$4 deadline=$((SECONDS + START_TIMEOUT))
    WAITED_PORT=
    while ((SECONDS < deadline)); do
        # (the background process opens FILE itself: on a loaded machine it may not exist yet)
        WAITED_PORT=$(sed -n "$sed_expr" "$file" 2>/dev/null | head -n 1) || WAITED_PORT=
        [[ -n $WAITED_PORT ]] && return 0
        if ! kill -0 "$pid" 2>/dev/null; then
            log "$what exited before it was ready; its output:"
            cat "$file" >&2 || true
            die "$what did not start"
        fi
        sleep 0.1
    done
    cat "$file" >&2 || true
    die "$what did not report its port within ${START_TIMEOUT}s"
}

# launch_mock NAME ARG...: starts a mock upstream (BENCH_MOCK: the Java or the Node one, the same
# arguments) without waiting for it (the mocks and Sluice start side by side); sets LAUNCHED_PID,
# the mock's own process (its CPU is measured). await_mock NAME PID: sets MOCK_PORT.
launch_mock() {
    local name=$1
    shift
    if [[ $MOCK == node ]]; then
        "$NODE" "$BENCH_DIR/mock-upstream.js" --port 0 "$@" >"$TMP/$name.log" 2>&1 &
    else
        # shellcheck disable=SC2086 # MOCK_JAVA_OPTS is a list of options
        "$JAVA" $MOCK_JAVA_OPTS -cp "$TESTKIT_JAR" dev.sluice.testkit.MockUpstreamMain --port 0 "$@" \
            >"$TMP/$name.log" 2>&1 &
    fi
    LAUNCHED_PID=$!
    PIDS+=("$LAUNCHED_PID")
    WATCHED_LOG[$LAUNCHED_PID]=$TMP/$name.log
}
await_mock() {
    wait_for_port "$TMP/$1.log" 's#^MockUpstream listening on http://127\.0\.0\.1:\([0-9][0-9]*\).*#\1#p' "$2" "mock $1"
    MOCK_PORT=$WAITED_PORT
}

# The JVM behind a launcher pid: the pid itself if it is java (exec), else a java descendant.
find_java_pid() {
    local pid=$1 exe child found
    exe=$(readlink "/proc/$pid/exe" 2>/dev/null || true)
    if [[ $exe == */java ]]; then
        echo "$pid"
        return 0
    fi
    for child in $(ps -o pid= --ppid "$pid" 2>/dev/null); do
        if found=$(find_java_pid "$child"); then
            echo "$found"
            return 0
        fi
    done
    return 1
}

proc_ticks() { # proc_ticks PID...: the summed utime+stime of these processes (0 for one gone)
    local pid files=()
    for pid in "$@"; do files+=("/proc/$pid/stat"); done
    # (one cat and one awk for all: on a loaded machine every process started here costs time)
    { ((${#files[@]} == 0)) || cat "${files[@]}" 2>/dev/null || true; } | awk '{ sub(/^.*\) /, ""); t += $12 + $13 } END { printf "%d\n", t }'
}

# CPU accounting, to tell how much other processes on the machine disturbed a measurement.
# cpu_mark: remembers /proc/stat's user+nice+system, steal and total ticks, and the CPU ticks of
# our processes (the mocks, nginx and Sluice, PostgreSQL and Redis with BENCH_SHARED=1, alive; wrk, curl and the rest, reaped: `times`).
# cpu_since LABEL: sets R[LABEL.foreign_pct] (user+system CPU of other processes, % of all CPUs)
# and R[LABEL.steal_pct] (CPU taken by the hypervisor). IRQ/softirq time (loopback) is left out.
CLK_TCK=$(getconf CLK_TCK)
cpu_ticks() { # prints "busy steal total ours"
    local ours t pg_pids=()
    if [[ -n $PG_PID ]]; then # the postmaster and its (long-lived: pooled) backends count as ours
        # shellcheck disable=SC2207 # a list of pids
        pg_pids=("$PG_PID" $(cat "/proc/$PG_PID/task/$PG_PID/children" 2>/dev/null))
    fi
    ours=$(proc_ticks "${PIDS[@]}" "${NGINX_PIDS[@]}" "${pg_pids[@]}")
    times >"$TMP/times"
    t=$(awk -v hz="$CLK_TCK" 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, "m"); s += a[1] * 60 + a[2] } }
        END { printf "%d", s * hz }' "$TMP/times")
    ours=$((ours + t))
    awk -v ours="$ours" '$1 == "cpu" { print $2 + $3 + $4, $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9, ours }' /proc/stat
}
# (cpu_ticks must run in this shell, not a subshell: `times` reports the caller's reaped children)
cpu_mark() {
    cpu_ticks >"$TMP/ticks"
    read -r MARK_BUSY MARK_STEAL MARK_TOTAL MARK_OURS <"$TMP/ticks"
}
cpu_since() {
    local busy steal total ours
    cpu_ticks >"$TMP/ticks"
    read -r busy steal total ours <"$TMP/ticks"
    read -r "R[$1.foreign_pct]" "R[$1.steal_pct]" < <(awk -v b=$((busy - MARK_BUSY)) -v s=$((steal - MARK_STEAL)) \
        -v t=$((total - MARK_TOTAL)) -v o=$((ours - MARK_OURS)) \
        'BEGIN { f = b - o; if (f < 0) f = 0; if (t <= 0) t = 1; printf "%.1f %.1f\n", 100 * f / t, 100 * s / t }')
}

declare -A R # R[label.field] = value

rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

# ---------------------------------------------------------------------------------------------
# CPU of the processes under test (issue 26), per measured run: the Sluice JVM as a whole and per
# thread group, nginx's worker and the mock upstream. utime+stime in clock ticks (CLK_TCK a second)
# from /proc; the report divides them by the requests served (streams: by the events relayed).
# ---------------------------------------------------------------------------------------------
# thread_snapshot PID: "process<TAB>utime+stime" of the whole process, then one line per live
# thread, "tid:starttime<TAB>utime+stime<TAB>comm" (comm: the thread's name as the kernel keeps it,
# cut to 15 characters); tid:starttime tells a thread from a later one that got the same tid. One
# cat reads them all, so that the process's total and its threads' are from the same moment.
thread_snapshot() {
    { cat /proc/"$1"/stat /proc/"$1"/task/*/stat 2>/dev/null || true; } | awk '{
        comm = $0; sub(/^[0-9]+ \(/, "", comm); sub(/\) [A-Za-z] .*$/, "", comm)
        rest = $0; sub(/^.*\) /, "", rest); split(rest, f, " ")
        if (NR == 1) printf "process\t%d\n", f[12] + f[13]
        else printf "%s:%s\t%d\t%s\n", $1, f[20], f[12] + f[13], comm }'
}
# thread_groups BEGIN END: "group ticks" lines, the CPU of the threads of END since BEGIN by group;
# a thread born during the run counts whole. A thread that exited during the run is gone from END:
# its CPU is in the process's total only, and shows as "exited" (the process's total minus the live
# threads'; the kernel rounds each thread's ticks and the process's separately, so this is also off
# by a few ticks when no thread exited). Then "total <process ticks>" and "threads <at start> <at
# end> <born> <exited>".
thread_groups() {
    awk -F '\t' '
        function group(c) {
            if (c ~ /^ForkJoinPool/ || c ~ /Poller/ || c ~ /^VirtualThread/) return "request"
            if (c ~ /^sluice-/) return c
            if (c ~ /^server-@/ || c ~ /^helidon-/) return "helidon"
            if (c ~ /^GC Thread/ || c ~ /^VM Thread/ || c ~ /^G1 / || c ~ /^ZGC/ || c ~ /^Z[A-Z]/ || c ~ /^Shenandoah/) return "gc"
            if (c ~ /^C[12] CompilerThre/) return "jit"
            return "other"
        }
        NR == FNR && $1 == "process" { total -= $2; next }
        NR == FNR { start[$1] = $2; nstart++; next }
        $1 == "process" { total += $2; next }
        {
            d = $2 - (($1 in start) ? start[$1] : 0)
            if (!($1 in start)) born++
            g[group($3)] += d; live += d; seen[$1] = 1; nend++
        }
        END {
            for (k in start) if (!(k in seen)) died++
            for (k in g) print k, g[k]
            print "exited", total - live
            print "total", total
            print "threads", nstart + 0, nend + 0, born + 0, died + 0
        }' "$1" "$2"
}
declare -A CPU_GROUPS # the thread groups seen in any run: the report's rows
# cpu_run_begin LABEL MOCK_PID: before a measured run, reads the CPU of its proxy (the Sluice JVM,
# also per thread, for sluice_* labels; nginx's worker for nginx_*) and of the mock it calls
cpu_run_begin() {
    local label=$1 target
    RUN_MOCK_PID=$2
    RUN_PROXY_PIDS=()
    RUN_THREADS_PID=
    case $label in
        sluice*) # TARGET_c1_rN, TARGET_cN_rN, TARGET_stream: the JVM of that Sluice
            target=${label%_c[1N]_r*}
            target=${target%_stream}
            RUN_PROXY_PIDS=("${S_PID[$target]}") RUN_THREADS_PID=${S_PID[$target]} ;;
        # shellcheck disable=SC2206 # a list of pids
        nginx_*) RUN_PROXY_PIDS=($NGINX_WORKERS) ;;
    esac
    if [[ -n $RUN_THREADS_PID ]]; then thread_snapshot "$RUN_THREADS_PID" >"$TMP/threads.begin"; fi
    RUN_PROXY_T0=$(proc_ticks "${RUN_PROXY_PIDS[@]}")
    RUN_MOCK_T0=$(proc_ticks "$RUN_MOCK_PID")
}
# cpu_run_end LABEL: after the run (and BENCH_CPU_SETTLE), sets R[LABEL.proxy_ticks] (not for
# direct runs), R[LABEL.mock_ticks], R[LABEL.g.GROUP] (Sluice's thread groups) and R[LABEL.threads]
cpu_run_end() {
    local label=$1 t1 name ticks
    sleep "$CPU_SETTLE"
    if [[ -n $RUN_THREADS_PID ]]; then thread_snapshot "$RUN_THREADS_PID" >"$TMP/threads.end"; fi
    t1=$(proc_ticks "${RUN_PROXY_PIDS[@]}")
    R[$label.mock_ticks]=$(($(proc_ticks "$RUN_MOCK_PID") - RUN_MOCK_T0))
    ((${#RUN_PROXY_PIDS[@]} == 0)) || R[$label.proxy_ticks]=$((t1 - RUN_PROXY_T0))
    [[ -n $RUN_THREADS_PID ]] || return 0
    while read -r name ticks; do
        case $name in
            threads) R[$label.threads]=$ticks ;; # "at start, at end, born, exited"
            # the Sluice JVM's total from the same reads as its threads (the groups add up to it)
            total) R[$label.proxy_ticks]=$ticks ;;
            *) R[$label.g.$name]=$ticks CPU_GROUPS[$name]=1 ;;
        esac
    done < <(thread_groups "$TMP/threads.begin" "$TMP/threads.end")
    printf '### %s: CPU ticks (%s a second) by thread, begin / end\n%s\n---\n%s\n\n' "$label" "$CLK_TCK" \
        "$(cat "$TMP/threads.begin")" "$(cat "$TMP/threads.end")" >>"$RAW_LOG"
}
# us_per TICKS N: microseconds of CPU per unit (request, event), "nan" without units
us_per() { awk -v t="$1" -v n="$2" -v hz="$CLK_TCK" 'BEGIN { if (n > 0) printf "%.1f", t * 1e6 / hz / n; else print "nan" }'; }

# ---------------------------------------------------------------------------------------------
# Prerequisites
# ---------------------------------------------------------------------------------------------
[[ -x $JAVA ]] || die "no java at $JAVA (set JAVA_HOME)"
if ! command -v wrk >/dev/null 2>&1; then
    log "wrk is missing: installing the Debian package"
    if ! apt-get install -y wrk >&2; then
        apt-get update >&2
        apt-get install -y wrk >&2
    fi
fi
command -v curl >/dev/null 2>&1 || die "curl is required"

# The control proxy. The package must not start Debian's own nginx (port 80 on every interface):
# where no policy-rc.d forbids starting services already (containers have one), one is put in
# place for the install and removed afterwards.
# install_debian NOT_ROOT_MESSAGE PACKAGE...: apt-get install without starting any service
# (the same holds for postgresql and redis-server: their packages start servers on fixed ports)
install_debian() {
    local why=$1 policy=/usr/sbin/policy-rc.d added_policy=0 rc=0
    shift
    [[ $EUID -eq 0 ]] || die "$why"
    if [[ ! -e $policy ]]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && added_policy=1
    fi
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"; } >&2 || rc=$?
    if ((added_policy)); then rm -f "$policy"; fi
    ((rc == 0)) || die "apt-get install $* failed (status $rc)"
}
install_nginx() {
    log "nginx is missing: installing Debian's nginx-light (the control proxy)"
    install_debian "nginx is missing and installing it needs root: apt-get install nginx-light (or set BENCH_NGINX)" nginx-light
}
if ! command -v "$NGINX" >/dev/null 2>&1; then
    install_nginx
    NGINX=$(command -v nginx || echo /usr/sbin/nginx)
fi
[[ -x $(command -v "$NGINX") ]] || die "no nginx at $NGINX"

# BENCH_SHARED=1: PostgreSQL (initdb, pg_ctl) and redis-server for the shared-mode Sluice
find_postgres_bin() { # prints the folder of initdb and pg_ctl, or fails
    local dir
    if [[ -n $POSTGRES_BIN ]]; then
        [[ -x $POSTGRES_BIN/initdb && -x $POSTGRES_BIN/pg_ctl ]] && echo "$POSTGRES_BIN"
        return
    fi
    # the newest /usr/lib/postgresql/<version>/bin (Debian), else the PATH
    dir=$(find /usr/lib/postgresql -mindepth 3 -maxdepth 3 -path '*/bin/initdb' -type f 2>/dev/null | sort -V | tail -n 1)
    if [[ -n $dir && -x ${dir%/initdb}/pg_ctl ]]; then
        echo "${dir%/initdb}"
        return 0
    fi
    dir=$(command -v initdb 2>/dev/null) || return 1
    [[ -x ${dir%/initdb}/pg_ctl ]] && echo "${dir%/initdb}"
}
REDIS_CLI=
if [[ $SHARED == 1 ]]; then
    if ! POSTGRES_BIN=$(find_postgres_bin); then
        [[ -z ${BENCH_POSTGRES_BIN:-} ]] || die "BENCH_POSTGRES_BIN=$BENCH_POSTGRES_BIN has no initdb and pg_ctl"
        log "PostgreSQL is missing: installing Debian's postgresql (BENCH_SHARED=1)"
        install_debian "BENCH_SHARED=1 needs PostgreSQL (initdb, pg_ctl) and installing it needs root: apt-get install postgresql (or set BENCH_POSTGRES_BIN)" postgresql
        POSTGRES_BIN=$(find_postgres_bin) || die "no initdb and pg_ctl after installing postgresql"
    fi
    if ! command -v "$REDIS_SERVER" >/dev/null 2>&1; then
        [[ $REDIS_SERVER == redis-server ]] || die "no redis-server at BENCH_REDIS_SERVER=$REDIS_SERVER"
        log "redis-server is missing: installing Debian's redis-server (BENCH_SHARED=1)"
        install_debian "BENCH_SHARED=1 needs redis-server and installing it needs root: apt-get install redis-server (or set BENCH_REDIS_SERVER)" redis-server
        command -v redis-server >/dev/null 2>&1 || die "no redis-server after installing it"
    fi
    if [[ $EUID -eq 0 ]]; then # initdb refuses to run as root
        id -u postgres >/dev/null 2>&1 || die "BENCH_SHARED=1 as root runs PostgreSQL as user postgres, and there is none"
        command -v runuser >/dev/null 2>&1 || die "BENCH_SHARED=1 as root needs runuser (util-linux) to run PostgreSQL as postgres"
        PG_AS=(runuser -u postgres --)
    fi
    # (optional: counts the Redis calls per request)
    REDIS_CLI=$(command -v redis-cli 2>/dev/null || true)
fi
if [[ $MOCK == node ]]; then
    NODE=$(command -v node 2>/dev/null) || die "BENCH_MOCK=node needs node (Node.js) on the PATH"
    MOCK_TEXT="Node.js $("$NODE" --version) (bench/mock-upstream.js)"
else
    [[ -f $TESTKIT_JAR ]] || die "no mock upstream jar at $TESTKIT_JAR: build first (mvn -B -DskipTests package)"
    MOCK_TEXT="Java (gateway-testkit's MockUpstreamMain, JVM options $MOCK_JAVA_OPTS)"
fi

# unpack_dist ZIP DIR: unpacks a distribution zip into DIR; sets UNPACKED_HOME (its folder with bin/sluice)
unpack_dist() {
    local zip=$1 dir=$2
    [[ -f $zip ]] || die "no distribution at $zip: build first (mvn -B -DskipTests package)"
    mkdir -p "$dir"
    if command -v unzip >/dev/null 2>&1; then
        unzip -q "$zip" -d "$dir"
    else
        (cd "$dir" && "$JAVA_HOME/bin/jar" xf "$zip")
    fi
    UNPACKED_HOME=$(dirname "$(find "$dir" -path '*/bin/sluice' -type f | head -n 1)")
    UNPACKED_HOME=$(dirname "$UNPACKED_HOME")
    [[ -f $UNPACKED_HOME/bin/sluice ]] || die "no bin/sluice in $zip"
    chmod +x "$UNPACKED_HOME/bin/sluice"
}
if [[ -z $SLUICE_HOME_DIR ]]; then
    unpack_dist "$SLUICE_ZIP" "$TMP/dist"
    SLUICE_HOME_DIR=$UNPACKED_HOME
fi
[[ -f $SLUICE_HOME_DIR/bin/sluice ]] || die "no bin/sluice under $SLUICE_HOME_DIR"
chmod +x "$SLUICE_HOME_DIR/bin/sluice"
if [[ -n $SLUICE_ZIP_B ]]; then
    unpack_dist "$SLUICE_ZIP_B" "$TMP/dist-b"
    SLUICE_HOME_B=$UNPACKED_HOME
fi

# Other work on the machine distorts every number: say so, and optionally wait for quiet
# (BENCH_QUIET_WAIT) before every measurement.
# (wait_quiet each: before a measurement, only when BENCH_QUIET_WAIT asks for quiet)
wait_quiet() {
    local deadline=$((SECONDS + QUIET_WAIT))
    if [[ ${1:-} == each ]] && ((QUIET_WAIT == 0)); then return 0; fi
    while :; do
        cpu_mark
        sleep 3
        cpu_since quiet
        if awk -v f="${R[quiet.foreign_pct]}" 'BEGIN { exit !(f < 10) }'; then
            return 0
        fi
        if ((SECONDS >= deadline)); then
            log "WARNING: other processes use ${R[quiet.foreign_pct]} % of the CPUs: results will be disturbed"
            return 0
        fi
        log "other processes use ${R[quiet.foreign_pct]} % of the CPUs: waiting for quiet (up to ${QUIET_WAIT}s)"
        sleep 7
    done
}
wait_quiet
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)

mkdir -p "$(dirname "$RESULTS")"
RAW_LOG=${RESULTS%.md}.log
: >"$RAW_LOG"
# until the run completes, the report says so (no stale numbers from an earlier run)
echo "Benchmark run started $(date -u '+%Y-%m-%d %H:%M:%S UTC') did not complete; see the console output." >"$RESULTS"

# ---------------------------------------------------------------------------------------------
# Start the two mock upstreams and Sluice, register the providers and a client key
# ---------------------------------------------------------------------------------------------
declare -A WATCHED # pid -> name of a process that must live until the end
declare -A WATCHED_LOG # pid -> its log file, shown when it exits (check_alive)
launch_mock plain
MOCK_PLAIN_PID=$LAUNCHED_PID
launch_mock stream --stream-pieces "$STREAM_PIECES" --stream-delay-ms "$STREAM_DELAY_MS"
MOCK_STREAM_PID=$LAUNCHED_PID
# the streams' JIT warm-up: the same stream without delays, so that a few thousand take seconds
launch_mock streamhot --stream-pieces "$STREAM_PIECES" --stream-delay-ms 0
MOCK_STREAMHOT_PID=$LAUNCHED_PID
# (their ports are awaited after Sluice's start, below: nginx needs them, Sluice not yet)

# ---------------------------------------------------------------------------------------------
# The nginx control: one worker proxying the same two mocks over kept-alive upstream connections
# ---------------------------------------------------------------------------------------------
# nginx cannot listen on port 0, so a free port is drawn from the kernel's ephemeral range, checked
# against /proc/net/tcp{,6}, and drawn again if nginx still fails to bind it (a race).
port_in_use() {
    local hex
    hex=$(printf '%04X' "$1")
    awk -v p=":$hex" 'FNR > 1 && substr($2, length($2) - 4) == p { found = 1 } END { exit !found }' \
        /proc/net/tcp /proc/net/tcp6 2>/dev/null
}
free_loopback_port() {
    local lo hi port
    read -r lo hi </proc/sys/net/ipv4/ip_local_port_range
    for _ in $(seq 1 100); do
        port=$((lo + (RANDOM * 32768 + RANDOM) % (hi - lo + 1)))
        if ! port_in_use "$port"; then
            echo "$port"
            return 0
        fi
    done
    return 1
}

# writes $TMP/nginx/nginx.conf for listening on port $1
write_nginx_conf() {
    local dir=$TMP/nginx
    cat >"$dir/nginx.conf" <<NGINX
# generated by bench/run.sh: the control proxy, one worker, everything under $dir
worker_processes 1;
daemon off;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events {
    worker_connections 4096;
}
http {
    access_log off;
    client_body_temp_path $dir/client_body;
    proxy_temp_path $dir/proxy;
    fastcgi_temp_path $dir/fastcgi;
    uwsgi_temp_path $dir/uwsgi;
    scgi_temp_path $dir/scgi;
    # clients (wrk, curl) keep their connections for the whole run, like they do with Sluice
    keepalive_requests 10000000;
    keepalive_timeout 300s;

    upstream mock_plain {
        server $HOST:$MOCK_PLAIN_PORT;
        keepalive $((HIGH_C * 2));
        keepalive_requests 10000000;
        keepalive_timeout 300s;
    }
    upstream mock_stream {
        server $HOST:$MOCK_STREAM_PORT;
        keepalive 16;
        keepalive_requests 10000000;
        keepalive_timeout 300s;
    }
    server {
        listen $HOST:$1;
        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_buffering off;
        location = /nginx-ready { return 204; }
        location /plain/ { proxy_pass http://mock_plain/; }
        location /stream/ { proxy_pass http://mock_stream/; }
    }
}
NGINX
}

start_nginx() {
    local dir=$TMP/nginx port attempt deadline
    mkdir -p "$dir"
    # when run as root, nginx's worker runs as an unprivileged user: it must be able to pass
    # through the (otherwise private) temporary directory to its temp paths
    chmod 711 "$TMP"
    for attempt in 1 2 3 4 5; do
        port=$(free_loopback_port) || die "no free loopback port for nginx"
        write_nginx_conf "$port"
        : >"$dir/error.log"
        "$NGINX" -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" >"$dir/stdout.log" 2>&1 &
        NGINX_PID=$!
        NGINX_PIDS=("$NGINX_PID")
        deadline=$((SECONDS + START_TIMEOUT))
        while ((SECONDS < deadline)); do
            if curl -s -o /dev/null --max-time 1 "http://$HOST:$port/nginx-ready"; then
                NGINX_PORT=$port
                return 0
            fi
            kill -0 "$NGINX_PID" 2>/dev/null || break
            sleep 0.1
        done
        stop_nginx
        if grep -q 'Address already in use' "$dir/error.log" "$dir/stdout.log" 2>/dev/null; then
            log "nginx: port $port was taken meanwhile (attempt $attempt): drawing another"
            continue
        fi
        cat "$dir/stdout.log" "$dir/error.log" >&2 || true
        die "nginx did not start (config: $dir/nginx.conf)"
    done
    die "nginx found no free port in 5 attempts"
}


# ---------------------------------------------------------------------------------------------
# BENCH_SHARED=1: a throwaway PostgreSQL and a redis-server for the shared-mode Sluice
# ---------------------------------------------------------------------------------------------

# initdb + pg_ctl in $TMP/pg (as postgres when run as root, like gateway-testkit's TestPostgres),
# on a free loopback port, no Unix socket, password auth; sets PG_PORT, PG_PID, PG_USER, PG_PASSWORD.
# PostgreSQL's own defaults otherwise (fsync on: the durability a deployment would have).
start_postgres() {
    local attempt port
    PG_DIR=$TMP/pg
    PG_USER=sluice
    PG_PASSWORD=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
    mkdir -p "$PG_DIR"
    chmod 711 "$TMP" # postgres must pass through to its folder
    (umask 077 && printf '%s' "$PG_PASSWORD" >"$PG_DIR/pw")
    if ((${#PG_AS[@]})); then chown -R postgres: "$PG_DIR"; fi
    (cd "$PG_DIR" && "${PG_AS[@]}" "$POSTGRES_BIN/initdb" -D "$PG_DIR/data" -U "$PG_USER" --pwfile="$PG_DIR/pw" \
        --auth=scram-sha-256 -E UTF8 --locale=C --no-sync >"$PG_DIR/initdb.log" 2>&1) ||
        { cat "$PG_DIR/initdb.log" >&2; die "initdb failed (PostgreSQL binaries at $POSTGRES_BIN)"; }
    rm -f "$PG_DIR/pw"
    printf "\ninclude_if_exists = 'bench.conf'\n" >>"$PG_DIR/data/postgresql.conf"
    for attempt in 1 2 3 4 5; do
        port=$(free_loopback_port) || die "no free loopback port for PostgreSQL"
        printf "listen_addresses = '%s'\nport = %s\nunix_socket_directories = ''\n" "$HOST" "$port" >"$PG_DIR/data/bench.conf"
        chmod 644 "$PG_DIR/data/bench.conf"
        if (cd "$PG_DIR" && "${PG_AS[@]}" "$POSTGRES_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/log" -w -t "$START_TIMEOUT" start) \
            >"$PG_DIR/pg_ctl.log" 2>&1; then
            PG_PORT=$port
            PG_PID=$(head -n 1 "$PG_DIR/data/postmaster.pid")
            return 0
        fi
        if grep -q 'already in use' "$PG_DIR/log" 2>/dev/null; then
            log "PostgreSQL: port $port was taken meanwhile (attempt $attempt): drawing another"
            continue
        fi
        cat "$PG_DIR/pg_ctl.log" "$PG_DIR/log" >&2 || true
        die "PostgreSQL did not start (folder $PG_DIR)"
    done
    die "PostgreSQL found no free port in 5 attempts"
}

# redis-server on a free loopback port, no persistence; sets REDIS_PORT, REDIS_PID.
start_redis() {
    local attempt port deadline
    mkdir -p "$TMP/redis"
    for attempt in 1 2 3 4 5; do
        port=$(free_loopback_port) || die "no free loopback port for Redis"
        "$REDIS_SERVER" --bind "$HOST" --port "$port" --save '' --appendonly no --daemonize no \
            --dir "$TMP/redis" --logfile '' >"$TMP/redis.log" 2>&1 &
        REDIS_PID=$!
        PIDS+=("$REDIS_PID")
        deadline=$((SECONDS + START_TIMEOUT))
        while ((SECONDS < deadline)); do
            if grep -q 'Ready to accept connections' "$TMP/redis.log" 2>/dev/null; then
                REDIS_PORT=$port
                return 0
            fi
            kill -0 "$REDIS_PID" 2>/dev/null || break
            sleep 0.1
        done
        kill -TERM "$REDIS_PID" 2>/dev/null || true
        wait "$REDIS_PID" 2>/dev/null || true
        if grep -q 'already in use' "$TMP/redis.log" 2>/dev/null; then
            log "Redis: port $port was taken meanwhile (attempt $attempt): drawing another"
            continue
        fi
        cat "$TMP/redis.log" >&2 || true
        die "redis-server did not start"
    done
    die "redis-server found no free port in 5 attempts"
}

if [[ $SHARED == 1 ]]; then
    start_postgres
    WATCHED[$PG_PID]=PostgreSQL
    WATCHED_LOG[$PG_PID]=$PG_DIR/log
    PG_VERSION=$("$POSTGRES_BIN/postgres" --version 2>/dev/null | awk '{ print $3 }' || true)
    PG_VERSION=${PG_VERSION:-?}
    log "PostgreSQL $PG_VERSION on port $PG_PORT (postmaster pid $PG_PID, folder $PG_DIR)"
    start_redis
    WATCHED[$REDIS_PID]=Redis
    WATCHED_LOG[$REDIS_PID]=$TMP/redis.log
    REDIS_VERSION=$("$REDIS_SERVER" --version 2>/dev/null | sed -n 's/.* v=\([^ ]*\).*/\1/p')
    log "redis-server ${REDIS_VERSION:-?} on port $REDIS_PORT (pid $REDIS_PID)"
fi

# The Sluice processes measured in every round, by label prefix ("sluice" first: the one the
# targets and the guard judge), each with its JVM's pid, base URL, client key (once provisioned),
# name in the report and short name in column heads (S_BASE: its base URL, S_URL: the chat
# completions URL measured).
SLUICES=()
declare -A S_PID S_BASE S_URL S_KEY S_NAME S_SHORT

# start_sluice TARGET NAME SHORT HOME LOG DATA_DIR [ENV_ARG...]: starts bin/sluice of the
# distribution in HOME on port 0 with the ENV_ARGs (for env(1): -u NAME or NAME=VALUE), waits for
# its port and adds it to SLUICES as TARGET (a label prefix); sets STARTED_PORT and STARTED_PID (the JVM)
start_sluice() {
    local target=$1 name=$2 short=$3 home=$4 logfile=$5 data=$6 launcher
    shift 6
    mkdir -p "$data"
    env "$@" SLUICE_PORT=0 SLUICE_HOST="$HOST" SLUICE_DATA_DIR="$data" SLUICE_ADMIN_KEY="$ADMIN_KEY" \
        "$home/bin/sluice" >"$logfile" 2>&1 &
    launcher=$!
    PIDS+=("$launcher")
    wait_for_port "$logfile" 's#^.*Sluice listening on http://[^ ]*:\([0-9][0-9]*\).*#\1#p' "$launcher" "$name"
    STARTED_PORT=$WAITED_PORT
    STARTED_PID=$(find_java_pid "$launcher") || die "cannot find the $name JVM under pid $launcher"
    if [[ $STARTED_PID != "$launcher" ]]; then
        PIDS+=("$STARTED_PID")
    fi
    SLUICES+=("$target")
    S_PID[$target]=$STARTED_PID
    S_BASE[$target]=http://$HOST:$STARTED_PORT
    S_URL[$target]=${S_BASE[$target]}/v1/chat/completions
    S_NAME[$target]=$name
    S_SHORT[$target]=$short
    WATCHED[$STARTED_PID]=$name
    WATCHED_LOG[$STARTED_PID]=$logfile
    log "$name on port $STARTED_PORT (JVM pid $STARTED_PID)"
}

ADMIN_KEY=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
SINGLE_ENV=()
if [[ $SHARED == 1 ]]; then # the single instance stays on SQLite whatever the caller exported
    SINGLE_ENV=(-u SLUICE_DATABASE_URL -u SLUICE_DATABASE_USER -u SLUICE_DATABASE_PASSWORD -u SLUICE_REDIS_URL)
fi
SLUICE_NAME=Sluice SLUICE_SHORT=""
if [[ -n $SLUICE_ZIP_B ]]; then SLUICE_NAME="Sluice $A_LABEL" SLUICE_SHORT=$A_LABEL; fi
start_sluice sluice "$SLUICE_NAME" "$SLUICE_SHORT" "$SLUICE_HOME_DIR" "$TMP/sluice.log" "$TMP/data" "${SINGLE_ENV[@]}"
SLUICE_PID=$STARTED_PID

if [[ $SHARED == 1 ]]; then
    # the same distribution in shared mode: every durable record in PostgreSQL, the hot state in Redis
    start_sluice sluice_shared "Sluice (shared)" shared "$SLUICE_HOME_DIR" "$TMP/sluice-shared.log" "$TMP/data-shared" \
        SLUICE_DATABASE_URL="jdbc:postgresql://$HOST:$PG_PORT/postgres" SLUICE_DATABASE_USER="$PG_USER" \
        SLUICE_DATABASE_PASSWORD="$PG_PASSWORD" SLUICE_REDIS_URL="redis://$HOST:$REDIS_PORT" \
        SLUICE_SECRET_KEY="$(head -c 32 /dev/urandom | base64)"
    grep -q 'database postgresql.*shared state redis' "$TMP/sluice-shared.log" ||
        die "the shared Sluice did not log 'database postgresql …, shared state redis …': $(grep -o 'database .*' "$TMP/sluice-shared.log")"
    log "Sluice (shared): $(grep -o 'database postgresql.*' "$TMP/sluice-shared.log" | head -n 1)"
fi
if [[ -n $SLUICE_ZIP_B ]]; then
    # BENCH_SLUICE_ZIP_B: the other build, a single instance on SQLite like the first
    start_sluice sluice_b "Sluice $B_LABEL" "$B_LABEL" "$SLUICE_HOME_B" "$TMP/sluice-b.log" "$TMP/data-b" "${SINGLE_ENV[@]}"
fi
# the Sluice processes other than the first, in the order they run in every round
OTHER_SLUICES=("${SLUICES[@]:1}")

# The mocks have been starting meanwhile; then the nginx control in front of them
await_mock plain "$MOCK_PLAIN_PID"
MOCK_PLAIN_PORT=$MOCK_PORT
WATCHED[$MOCK_PLAIN_PID]="mock upstream (echo)"
await_mock stream "$MOCK_STREAM_PID"
MOCK_STREAM_PORT=$MOCK_PORT
WATCHED[$MOCK_STREAM_PID]="mock upstream (stream)"
await_mock streamhot "$MOCK_STREAMHOT_PID"
MOCK_STREAMHOT_PORT=$MOCK_PORT
WATCHED[$MOCK_STREAMHOT_PID]="mock upstream (stream without delays)"
log "mock upstreams on ports $MOCK_PLAIN_PORT (echo) and $MOCK_STREAM_PORT (stream)"
start_nginx
NGINX_WORKERS=$(ps -o pid= --ppid "$NGINX_PID" 2>/dev/null | xargs)
[[ -n $NGINX_WORKERS ]] || die "nginx (pid $NGINX_PID) has no worker process"
# shellcheck disable=SC2206 # a list of pids
NGINX_PIDS+=($NGINX_WORKERS)
WATCHED[$NGINX_PID]="nginx (control)"
WATCHED_LOG[$NGINX_PID]=$TMP/nginx/error.log
NGINX_VERSION=$("$NGINX" -v 2>&1 | sed 's#^nginx version: ##')
log "nginx $NGINX_VERSION on port $NGINX_PORT (master pid $NGINX_PID, worker $NGINX_WORKERS)"

# Fails the run if a mock or Sluice has exited (crashed or killed): its numbers would be garbage.
check_alive() {
    local pid
    for pid in "${!WATCHED[@]}"; do
        if ! kill -0 "$pid" 2>/dev/null; then
            log "${WATCHED[$pid]} (pid $pid) exited during $1; the last lines of its output:"
            tail -n 30 "${WATCHED_LOG[$pid]:-/dev/null}" >&2 || true
            die "${WATCHED[$pid]} exited during $1: no valid results"
        fi
    done
}

# admin POST BASE PATH BODY: prints the response body, fails unless the status is 201
admin_post() {
    local out status
    out=$(curl -sS --max-time 10 -w '\n%{http_code}' -X POST "$1$2" \
        -H "Authorization: Bearer $ADMIN_KEY" -H 'Content-Type: application/json' --data-binary "$3")
    status=${out##*$'\n'}
    out=${out%$'\n'*}
    [[ $status == 201 ]] || die "POST $2 answered $status: $out"
    printf '%s' "$out"
}
json_string() { sed -n "s/.*\"$1\"[[:space:]]*:[[:space:]]*\"\([^\"]*\)\".*/\1/p" | head -n 1; }

# provision BASE: the two mock providers and a client key, printed
provision() {
    local key
    admin_post "$1" /api/providers \
        "{\"provider\":\"bench\",\"authType\":\"apikey\",\"apiKey\":\"sk-bench\",\"baseUrl\":\"http://$HOST:$MOCK_PLAIN_PORT/v1\"}" >/dev/null
    admin_post "$1" /api/providers \
        "{\"provider\":\"benchstream\",\"authType\":\"apikey\",\"apiKey\":\"sk-bench\",\"baseUrl\":\"http://$HOST:$MOCK_STREAM_PORT/v1\"}" >/dev/null
    admin_post "$1" /api/providers \
        "{\"provider\":\"benchhot\",\"authType\":\"apikey\",\"apiKey\":\"sk-bench\",\"baseUrl\":\"http://$HOST:$MOCK_STREAMHOT_PORT/v1\"}" >/dev/null
    key=$(admin_post "$1" /api/keys '{"name":"bench"}' | json_string key)
    [[ -n $key ]] || die "POST /api/keys returned no \"key\""
    printf '%s' "$key"
}
for t in "${SLUICES[@]}"; do
    S_KEY[$t]=$(provision "${S_BASE[$t]}")
done

body() { # body MODEL STREAM
    printf '{"model":"%s","stream":%s,"messages":[{"role":"user","content":"hi"}]}' "$1" "$2"
}
DIRECT_URL=http://$HOST:$MOCK_PLAIN_PORT/v1/chat/completions
DIRECT_STREAM_URL=http://$HOST:$MOCK_STREAM_PORT/v1/chat/completions
NGINX_URL=http://$HOST:$NGINX_PORT/plain/v1/chat/completions
NGINX_STREAM_URL=http://$HOST:$NGINX_PORT/stream/v1/chat/completions

# Sanity: one request of each kind must succeed before anything is measured.
check() { # check NAME URL KEY BODY MUST_CONTAIN
    local out status
    out=$(curl -sS --max-time 10 -w '\n%{http_code}' -X POST "$2" -H 'Content-Type: application/json' \
        ${3:+-H "Authorization: Bearer $3"} --data-binary "$4")
    status=${out##*$'\n'}
    out=${out%$'\n'*}
    [[ $status == 200 && $out == *"$5"* ]] || die "sanity check '$1' failed: status $status, body: $out"
}
check "direct" "$DIRECT_URL" "" "$(body mock-model false)" '"chat.completion"'
check "nginx" "$NGINX_URL" "" "$(body mock-model false)" '"chat.completion"'
check "direct stream" "$DIRECT_STREAM_URL" "" "$(body mock-model true)" '[DONE]'
check "nginx stream" "$NGINX_STREAM_URL" "" "$(body mock-model true)" '[DONE]'
for t in "${SLUICES[@]}"; do
    check "${S_NAME[$t]}" "${S_URL[$t]}" "${S_KEY[$t]}" "$(body bench/mock-model false)" '"chat.completion"'
    check "${S_NAME[$t]} stream" "${S_URL[$t]}" "${S_KEY[$t]}" "$(body benchstream/mock-model true)" '[DONE]'
done

# ---------------------------------------------------------------------------------------------
# Idle RSS: after start-up and the requests above, then IDLE_SECONDS without traffic
# ---------------------------------------------------------------------------------------------
sleep "$IDLE_SECONDS"
declare -A RSS_IDLE_MIB RSS_LOAD_MIB # by Sluice target
for t in "${SLUICES[@]}"; do
    RSS_IDLE_MIB[$t]=$(mib "$(rss_kib "${S_PID[$t]}")")
    log "${S_NAME[$t]} idle RSS ${RSS_IDLE_MIB[$t]} MiB"
done

# ---------------------------------------------------------------------------------------------
# wrk runs
# ---------------------------------------------------------------------------------------------
cat >"$TMP/bench.lua" <<'LUA'
-- POSTs BENCH_BODY (with "Authorization: Bearer BENCH_AUTH" if set); done() prints one line.
wrk.method = "POST"
wrk.body = os.getenv("BENCH_BODY")
wrk.headers["Content-Type"] = "application/json"
local auth = os.getenv("BENCH_AUTH")
if auth ~= nil and auth ~= "" then
  wrk.headers["Authorization"] = "Bearer " .. auth
end

function done(summary, latency, requests)
  local e = summary.errors
  local secs = summary.duration / 1e6
  io.write(string.format(
    "BENCH_RESULT requests=%d duration_s=%.3f rps=%.1f p50_ms=%.3f p99_ms=%.3f max_ms=%.3f " ..
    "err_connect=%d err_read=%d err_write=%d err_status=%d err_timeout=%d\n",
    summary.requests, secs, summary.requests / secs,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
    e.connect, e.read, e.write, e.status, e.timeout))
end
LUA

INVALID=()

# run_wrk LABEL URL KEY MODEL CONCURRENCY THREADS DURATION [measure]
run_wrk() {
    local label=$1 url=$2 key=$3 model=$4 conc=$5 threads=$6 dur=$7 measure=${8:-}
    local out line kv errors
    [[ -n $measure ]] && wait_quiet each
    log "wrk $label: -t$threads -c$conc -d$dur $url"
    if [[ -n $measure && $label == sluice_shared_* && -n $REDIS_CLI ]]; then redis_stats >"$TMP/redis.before"; fi
    [[ -z $measure ]] || cpu_run_begin "$label" "$MOCK_PLAIN_PID"
    cpu_mark
    out=$(BENCH_BODY=$(body "$model" false) BENCH_AUTH=$key \
        wrk -t"$threads" -c"$conc" -d"$dur" --timeout 5s -s "$TMP/bench.lua" "$url" 2>&1)
    cpu_since "$label"
    [[ -z $measure ]] || cpu_run_end "$label"
    if [[ -n $measure && $label == sluice_shared_* && -n $REDIS_CLI ]]; then redis_stats >"$TMP/redis.after"; fi
    check_alive "wrk $label"
    printf '### %s (-t%s -c%s -d%s)\n%s\n\n' "$label" "$threads" "$conc" "$dur" "$out" >>"$RAW_LOG"
    line=$(grep '^BENCH_RESULT ' <<<"$out" | tail -n 1) || die "wrk $label printed no result: $out"
    for kv in ${line#BENCH_RESULT }; do
        R[$label.${kv%%=*}]=${kv#*=}
    done
    errors=$((R[$label.err_connect] + R[$label.err_read] + R[$label.err_write] + R[$label.err_status] + R[$label.err_timeout]))
    R[$label.errors]=$errors
    if ((R[$label.requests] == 0)); then
        log "wrk $label: no request was answered"
        INVALID+=("wrk $label: no requests")
    fi
    if ((errors > 0)); then
        log "wrk $label: $errors errors (connect ${R[$label.err_connect]}, read ${R[$label.err_read]}, write ${R[$label.err_write]}, non-2xx/3xx ${R[$label.err_status]}, timeout ${R[$label.err_timeout]})"
        INVALID+=("wrk $label: $errors errors")
    fi
    [[ -n $measure ]] && log "  $label: ${R[$label.rps]} req/s, p50 ${R[$label.p50_ms]} ms, p99 ${R[$label.p99_ms]} ms$(cpu_text "$label")" \
        "(other processes ${R[$label.foreign_pct]} % CPU, steal ${R[$label.steal_pct]} %)"
    if [[ -n $measure && $label == sluice_shared_* && -n $REDIS_CLI ]]; then redis_count "$label"; fi
    return 0
}

# cpu_text LABEL: ", CPU x µs/request (proxy), mock y µs/request" for the console
cpu_text() {
    local n=${R[$1.requests]}
    [[ -z ${R[$1.proxy_ticks]:-} ]] || printf ', CPU %s µs/request' "$(us_per "${R[$1.proxy_ticks]}" "$n")"
    printf ', mock %s µs/request' "$(us_per "${R[$1.mock_ticks]}" "$n")"
}

# BENCH_SHARED=1 with redis-cli: Redis's own count of the commands it ran (INFO commandstats)
# around every measured sluice-shared run; REDIS_CALLS[c1|cN.COMMAND] sums the calls and
# REDIS_CALLS[c1|cN] all of them (background work during the run, if any, is counted too).
declare -A REDIS_CALLS
redis_stats() { # prints "command calls" lines
    "$REDIS_CLI" -h "$HOST" -p "$REDIS_PORT" INFO commandstats |
        sed -n 's/^cmdstat_\([^:]*\):calls=\([0-9]*\),.*/\1 \2/p'
}
redis_count() { # redis_count LABEL: adds the difference of redis.before and redis.after
    local class=${1#sluice_shared_} cmd n
    class=${class%_r*}
    while read -r cmd n; do
        ((n > 0)) || continue
        REDIS_CALLS[$class.$cmd]=$((${REDIS_CALLS[$class.$cmd]:-0} + n))
        REDIS_CALLS[$class]=$((${REDIS_CALLS[$class]:-0} + n))
    done < <(awk 'NR == FNR { before[$1] = $2; next } { print $1, $2 - before[$1] }' "$TMP/redis.before" "$TMP/redis.after")
    # the INFO command itself is one call (the "after" one)
    REDIS_CALLS[$class.info]=$((${REDIS_CALLS[$class.info]:-0} - 1))
    REDIS_CALLS[$class]=$((${REDIS_CALLS[$class]:-0} - 1))
}

run_wrk warmup_direct "$DIRECT_URL" "" mock-model "$HIGH_C" "$WRK_THREADS" "$WARMUP"
run_wrk warmup_nginx "$NGINX_URL" "" mock-model "$HIGH_C" "$WRK_THREADS" "$WARMUP"
for t in "${SLUICES[@]}"; do
    run_wrk "warmup_$t" "${S_URL[$t]}" "${S_KEY[$t]}" bench/mock-model "$HIGH_C" "$WRK_THREADS" "$SLUICE_WARMUP"
done

# Every Sluice's RSS, sampled every 0.5 s through all rounds: its maximum is reached under load
# ($TMP/rss_max.TARGET)
(
    declare -A max
    while kill -0 "$SLUICE_PID" 2>/dev/null; do
        for t in "${SLUICES[@]}"; do
            kib=$(rss_kib "${S_PID[$t]}" 2>/dev/null || echo 0)
            if ((kib > ${max[$t]:-0})); then max[$t]=$kib; echo "$kib" >"$TMP/rss_max.$t"; fi
        done
        sleep 0.5
    done
) &
SAMPLER_PID=$!
PIDS+=("$SAMPLER_PID")

# Interleaved rounds: a disturbance of the shared machine (another build, a GC of a neighbour)
# hits one round of every target alike instead of all rounds of one target, and the median of the
# rounds drops it. Added latency and throughput ratios are computed per round (against the direct
# run of the same round) and their median is reported.
for ((round = 1; round <= ROUNDS; round++)); do
    log "round $round of $ROUNDS"
    run_wrk "direct_c1_r$round" "$DIRECT_URL" "" mock-model 1 1 "$DURATION" measure
    run_wrk "nginx_c1_r$round" "$NGINX_URL" "" mock-model 1 1 "$DURATION" measure
    for t in "${SLUICES[@]}"; do
        run_wrk "${t}_c1_r$round" "${S_URL[$t]}" "${S_KEY[$t]}" bench/mock-model 1 1 "$DURATION" measure
    done
    run_wrk "direct_cN_r$round" "$DIRECT_URL" "" mock-model "$HIGH_C" "$WRK_THREADS" "$DURATION" measure
    run_wrk "nginx_cN_r$round" "$NGINX_URL" "" mock-model "$HIGH_C" "$WRK_THREADS" "$DURATION" measure
    for t in "${SLUICES[@]}"; do
        run_wrk "${t}_cN_r$round" "${S_URL[$t]}" "${S_KEY[$t]}" bench/mock-model "$HIGH_C" "$WRK_THREADS" "$DURATION" measure
    done
done
kill -TERM "$SAMPLER_PID" 2>/dev/null || true
wait "$SAMPLER_PID" 2>/dev/null || true
for t in "${SLUICES[@]}"; do
    RSS_LOAD_MIB[$t]=$(mib "$(cat "$TMP/rss_max.$t" 2>/dev/null || echo 0)")
    log "${S_NAME[$t]} max RSS under load ${RSS_LOAD_MIB[$t]} MiB"
done

# median V...: the middle value (the mean of the two middle ones for an even count)
median() {
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
        if (NR == 0) { print "nan"; exit }
        if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# summarize LABEL: R[LABEL.x] from the rounds' R[LABEL_rN.x] — medians of rps/p50/p99, the
# largest max latency and disturbance, the sums of requests and errors
summarize() {
    local label=$1 field r vals
    for field in rps p50_ms p99_ms; do
        vals=()
        for ((r = 1; r <= ROUNDS; r++)); do vals+=("${R[${label}_r$r.$field]}"); done
        R[$label.$field]=$(median "${vals[@]}")
    done
    R[$label.requests]=0
    R[$label.errors]=0
    R[$label.max_ms]=0
    R[$label.foreign_pct]=0
    R[$label.steal_pct]=0
    for ((r = 1; r <= ROUNDS; r++)); do
        R[$label.requests]=$((R[$label.requests] + R[${label}_r$r.requests]))
        R[$label.errors]=$((R[$label.errors] + R[${label}_r$r.errors]))
        for field in max_ms foreign_pct steal_pct; do
            R[$label.$field]=$(awk -v a="${R[$label.$field]}" -v b="${R[${label}_r$r.$field]}" 'BEGIN { print (b > a ? b : a) }')
        done
    done
    summarize_cpu "$label" requests
}
# summarize_cpu LABEL UNIT: CPU per request (UNIT requests) or per streamed event (UNIT events) of
# each round, R[LABEL_rN.cpu_us] (the proxy: Sluice or nginx's worker), R[LABEL_rN.mock_cpu_us]
# and R[LABEL_rN.g_us.GROUP] (Sluice's thread groups), and their medians over the rounds in
# R[LABEL.*] (the groups' medians need not add up to the total's); R[LABEL.thread_churn] sums the
# threads born and exited during the runs. A label without rounds (streams) is its own round.
summarize_cpu() {
    local label=$1 unit=$2 r rl g n rounds=() born=0 died=0 key field value
    if [[ -n ${R[$label.mock_ticks]:-} ]]; then rounds=("$label"); else
        for ((r = 1; r <= ROUNDS; r++)); do rounds+=("${label}_r$r"); done
    fi
    # (one awk for all of it: on a loaded machine every process the script starts costs time)
    while read -r key field value; do
        R[$key.$field]=$value
    done < <(for rl in "${rounds[@]}"; do
        n=${R[$rl.$unit]}
        echo "$rl mock_cpu_us ${R[$rl.mock_ticks]} $n"
        [[ -z ${R[$rl.proxy_ticks]:-} ]] || echo "$rl cpu_us ${R[$rl.proxy_ticks]} $n"
        [[ -n ${R[$rl.threads]:-} ]] || continue
        for g in "${!CPU_GROUPS[@]}"; do echo "$rl g_us.$g ${R[$rl.g.$g]:-0} $n"; done
    done | awk -v hz="$CLK_TCK" -v label="$label" '
        {
            v = ($4 > 0) ? sprintf("%.1f", $3 * 1e6 / hz / $4) : "nan"
            print $1, $2, v
            if (!($2 in count)) order[++fields] = $2
            vals[$2, ++count[$2]] = v
        }
        END {
            for (f = 1; f <= fields; f++) {
                name = order[f]; k = count[name]; nan = 0
                for (i = 1; i <= k; i++) { x[i] = vals[name, i]; if (x[i] == "nan") nan = 1 }
                if (nan) { print label, name, "nan"; continue }
                for (i = 2; i <= k; i++) { # insertion sort, numeric
                    y = x[i] + 0
                    for (j = i - 1; j >= 1 && x[j] + 0 > y; j--) x[j + 1] = x[j]
                    x[j + 1] = y
                }
                if (k % 2) m = x[(k + 1) / 2]; else m = (x[k / 2] + x[k / 2 + 1]) / 2
                printf "%s %s %.1f\n", label, name, m
            }
        }')
    for rl in "${rounds[@]}"; do
        [[ -n ${R[$rl.threads]:-} ]] || continue
        read -r _ _ r g <<<"${R[$rl.threads]}"
        born=$((born + r)) died=$((died + g))
    done
    R[$label.thread_churn]="$born born, $died exited"
}
# per_round NAME added:X:Y | ratio:X:Y — R[NAME] = the median over the rounds of X's p50 minus
# Y's p50 (added latency, ms) or of X's req/s divided by Y's (throughput ratio), each taken within
# one round; R[NAME.rounds] lists the values of the rounds
per_round() {
    local name=$1 fmt=$2 r vals=() a b
    for ((r = 1; r <= ROUNDS; r++)); do
        case $fmt in
            added:*) # added:X:Y = X.p50_ms - Y.p50_ms of the round
                IFS=: read -r _ a b <<<"$fmt"
                vals+=("$(awk -v x="${R[${a}_r$r.p50_ms]}" -v y="${R[${b}_r$r.p50_ms]}" 'BEGIN { printf "%.4f", x - y }')") ;;
            ratio:*) # ratio:X:Y = X.rps / Y.rps of the round
                IFS=: read -r _ a b <<<"$fmt"
                vals+=("$(awk -v x="${R[${a}_r$r.rps]}" -v y="${R[${b}_r$r.rps]}" 'BEGIN { printf "%.4f", (y > 0 ? x / y : 0) }')") ;;
            p99ratio:*) # p99ratio:X:Y = X.p99_ms / Y.p99_ms of the round
                IFS=: read -r _ a b <<<"$fmt"
                vals+=("$(awk -v x="${R[${a}_r$r.p99_ms]}" -v y="${R[${b}_r$r.p99_ms]}" 'BEGIN { printf "%.4f", (y > 0 ? x / y : 0) }')") ;;
        esac
    done
    R[$name]=$(median "${vals[@]}")
    R[$name.rounds]=$(printf '%s ' "${vals[@]}")
}
for t in direct nginx "${SLUICES[@]}"; do
    summarize "${t}_c1"
    summarize "${t}_cN"
done
for t in nginx "${SLUICES[@]}"; do
    per_round "added_c1.$t" "added:${t}_c1:direct_c1"
    per_round "ratio_cN.$t" "ratio:${t}_cN:direct_cN"
done
per_round p99_cN.sluice_per_nginx p99ratio:sluice_cN:nginx_cN
# what another Sluice (shared mode: issue 20; B) adds on top of the first, within each round
for t in "${OTHER_SLUICES[@]}"; do
    per_round "minus_first_c1.$t" "added:${t}_c1:sluice_c1"
    per_round "per_first_cN.$t" "ratio:${t}_cN:sluice_cN"
done

# ---------------------------------------------------------------------------------------------
# Streaming time to first byte: N sequential requests over one keep-alive connection (one curl)
# ---------------------------------------------------------------------------------------------
# trace_streams TRACE: for each request in curl's --trace-ascii --trace-time output, one line
# "<ms from sending the request to the first received data with a non-empty "content"> <SSE events
# received>" ("nan" if no content came). The data of one receive is joined from its 64-byte lines.
trace_streams() {
    awk '
        function secs(s, a) { split(s, a, ":"); return a[1] * 3600 + a[2] * 60 + a[3] }
        function flush(copy) {
            if (recv && buf != "") {
                copy = buf
                events += gsub(/data:/, "", copy)
                if (first < 0 && buf ~ /"content": ?"[^"]/) first = at
            }
            buf = ""
        }
        function emit(d) {
            if (!n) return
            if (first < 0) { print "nan", events; return }
            d = first - t0; if (d < 0) d += 86400 # past midnight
            printf "%.3f %d\n", d * 1000, events
        }
        /^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\.[0-9]+ / {
            flush()
            if ($2 == "=>" && $3 == "Send" && $4 == "header,") { emit(); n++; t0 = secs($1); first = -1; events = 0 }
            recv = ($2 == "<=" && $3 == "Recv" && $4 == "data,")
            at = secs($1)
            next
        }
        recv && /^[0-9a-f]+: / { sub(/^[0-9a-f]+: /, ""); buf = buf $0 }
        END { flush(); emit() }' "$1"
}

# ttfb LABEL URL KEY MODEL N [measure]: sets R[LABEL.p50_ms], R[LABEL.p99_ms] (time to the first
# byte), R[LABEL.ttft_p50_ms], R[LABEL.ttft_p99_ms] (to the first content token), R[LABEL.errors],
# R[LABEL.events] (SSE events received in all complete streams) and, measured, the CPU per event
ttfb() {
    local label=$1 url=$2 key=$3 model=$4 n=$5 measure=${6:-} cfg=$TMP/$1.curlrc i
    {
        echo 'silent'
        echo 'show-error'
        echo 'request = "POST"'
        echo 'header = "Content-Type: application/json"'
        [[ -n $key ]] && echo "header = \"Authorization: Bearer $key\""
        echo "data-binary = \"$(body "$model" true | sed 's/"/\\"/g')\""
        echo 'max-time = 10'
        echo "trace-ascii = \"$TMP/$label.trace\""
        echo 'trace-time'
        echo 'write-out = "%{http_code} %{time_starttransfer} %{size_download} %{num_connects} %{time_total} %{exitcode} %{errormsg}\n"'
        for ((i = 0; i < n; i++)); do
            echo "url = \"$url\""
            echo 'output = "/dev/null"'
        done
    } >"$cfg"
    [[ -n $measure ]] && wait_quiet each
    [[ -z $measure ]] || cpu_run_begin "$label" "$MOCK_STREAM_PID"
    cpu_mark
    curl -K "$cfg" >"$TMP/$label.ttfb" 2>"$TMP/$label.curlerr" || true
    cpu_since "$label"
    [[ -z $measure ]] || cpu_run_end "$label"
    # per request from curl's trace: ms from sending the request to the first event with content
    # (time to the first content token), and the SSE events received
    trace_streams "$TMP/$label.trace" >"$TMP/$label.ttft"
    check_alive "streaming $label"
    if [[ -s $TMP/$label.curlerr ]]; then
        log "curl $label: $(sort "$TMP/$label.curlerr" | uniq -c | sort -rn | head -n 3 | tr '\n' ';')"
    fi
    # a stream is complete if it answered 200 with a body of at least a few events
    R[$label.connects]=$(awk '{ c += $4 } END { print c + 0 }' "$TMP/$label.ttfb")
    R[$label.errors]=$(awk -v n="$n" '$1 != 200 || $3 < 100 { bad++ } END { print bad + (n - NR) }' "$TMP/$label.ttfb")
    read -r "R[$label.p50_ms]" "R[$label.p99_ms]" < <(awk '$1 == 200 { print $2 * 1000 }' "$TMP/$label.ttfb" | sort -g |
        awk '{ v[NR] = $1 } END {
            if (NR == 0) { print "nan nan"; exit }
            i50 = int(0.50 * NR); if (i50 < 0.50 * NR) i50++
            i99 = int(0.99 * NR); if (i99 < 0.99 * NR) i99++
            printf "%.3f %.3f\n", v[i50], v[i99] }')
    R[$label.total_p50_ms]=$(awk '$1 == 200 { print $5 * 1000 }' "$TMP/$label.ttfb" | sort -g |
        awk '{ v[NR] = $1 } END { i = int(0.5 * NR); if (i < 0.5 * NR) i++; printf "%.1f", (NR ? v[i] : "nan") }')
    # (a stream without a content event counts as failed: every mock stream has content pieces)
    paste -d ' ' "$TMP/$label.ttfb" "$TMP/$label.ttft" | awk '$1 == 200 { print $(NF - 1), $NF }' >"$TMP/$label.ttft200"
    R[$label.events]=$(awk '{ e += $2 } END { print e + 0 }' "$TMP/$label.ttft200")
    R[$label.streams]=$(awk 'END { print NR }' "$TMP/$label.ttft200")
    R[$label.errors]=$((R[$label.errors] + $(awk '$1 == "nan" { bad++ } END { print bad + 0 }' "$TMP/$label.ttft200")))
    read -r "R[$label.ttft_p50_ms]" "R[$label.ttft_p99_ms]" < <(awk '$1 != "nan" { print $1 }' "$TMP/$label.ttft200" | sort -g |
        awk '{ v[NR] = $1 } END {
            if (NR == 0) { print "nan nan"; exit }
            i50 = int(0.50 * NR); if (i50 < 0.50 * NR) i50++
            i99 = int(0.99 * NR); if (i99 < 0.99 * NR) i99++
            printf "%.3f %.3f\n", v[i50], v[i99] }')
    [[ -z $measure ]] || summarize_cpu "$label" events
    printf '### %s: %s streaming requests, "http_code time_starttransfer size_download num_connects time_total exitcode errormsg"\n%s\n\n' \
        "$label" "$n" "$(cat "$TMP/$label.ttfb")" >>"$RAW_LOG"
    if ((R[$label.errors] > 0)); then
        log "streaming $label: ${R[$label.errors]} of $n requests failed"
        INVALID+=("streaming $label: ${R[$label.errors]} failed requests")
    fi
}

# stream_jit_warmup TARGET N C: N streams of the mock without delays through Sluice TARGET, C curls at
# once (no trace: only the JIT's warm-up counts); a failed stream makes the run invalid
stream_jit_warmup() {
    local t=$1 n=$2 c=$3 j i cfg failed pids=()
    for ((j = 0; j < c; j++)); do
        cfg=$TMP/warmup_${t}_streamhot.$j.curlrc
        {
            echo 'silent'
            echo 'request = "POST"'
            echo 'header = "Content-Type: application/json"'
            echo "header = \"Authorization: Bearer ${S_KEY[$t]}\""
            echo "data-binary = \"$(body benchhot/mock-model true | sed 's/"/\\"/g')\""
            echo 'max-time = 10'
            echo 'write-out = "%{http_code} %{size_download}\n"'
            for ((i = j; i < n; i += c)); do
                echo "url = \"${S_URL[$t]}\""
                echo 'output = "/dev/null"'
            done
        } >"$cfg"
        curl -K "$cfg" >"$TMP/warmup_${t}_streamhot.$j.out" 2>&1 &
        pids+=($!)
    done
    wait "${pids[@]}" || true
    check_alive "streaming JIT warm-up of ${S_NAME[$t]}"
    failed=$(cat "$TMP/warmup_${t}_streamhot."*.out | awk -v n="$n" '$1 == 200 && $2 >= 100 { ok++ } END { print n - ok }')
    if ((failed > 0)); then
        log "streaming JIT warm-up of ${S_NAME[$t]}: $failed of $n streams failed"
        INVALID+=("streaming JIT warm-up of ${S_NAME[$t]}: $failed failed streams")
    fi
}

log "streaming TTFB: $STREAM_JIT_WARMUP_N JIT warm-up streams through Sluice ($STREAM_JIT_WARMUP_C at once)," \
    "$STREAM_WARMUP_N warm-up + $STREAM_N measured requests per target"
if ((STREAM_JIT_WARMUP_N > 0)); then
    for t in "${SLUICES[@]}"; do
        stream_jit_warmup "$t" "$STREAM_JIT_WARMUP_N" "$STREAM_JIT_WARMUP_C"
    done
fi
ttfb warmup_direct_stream "$DIRECT_STREAM_URL" "" mock-model "$STREAM_WARMUP_N"
ttfb warmup_nginx_stream "$NGINX_STREAM_URL" "" mock-model "$STREAM_WARMUP_N"
for t in "${SLUICES[@]}"; do
    ttfb "warmup_${t}_stream" "${S_URL[$t]}" "${S_KEY[$t]}" benchstream/mock-model "$STREAM_WARMUP_N"
done
ttfb direct_stream "$DIRECT_STREAM_URL" "" mock-model "$STREAM_N" measure
ttfb nginx_stream "$NGINX_STREAM_URL" "" mock-model "$STREAM_N" measure
for t in "${SLUICES[@]}"; do
    ttfb "${t}_stream" "${S_URL[$t]}" "${S_KEY[$t]}" benchstream/mock-model "$STREAM_N" measure
done
for t in "${OTHER_SLUICES[@]}"; do
    log "  TTFB ${S_NAME[$t]} p50 ${R[${t}_stream.p50_ms]} ms p99 ${R[${t}_stream.p99_ms]} ms;" \
        "first content token p50 ${R[${t}_stream.ttft_p50_ms]} ms; CPU per event ${R[${t}_stream.cpu_us]} µs"
done
log "  TTFB direct p50 ${R[direct_stream.p50_ms]} ms p99 ${R[direct_stream.p99_ms]} ms;" \
    "nginx p50 ${R[nginx_stream.p50_ms]} ms p99 ${R[nginx_stream.p99_ms]} ms;" \
    "Sluice p50 ${R[sluice_stream.p50_ms]} ms p99 ${R[sluice_stream.p99_ms]} ms"
log "  first content token p50: direct ${R[direct_stream.ttft_p50_ms]} ms, nginx ${R[nginx_stream.ttft_p50_ms]} ms," \
    "Sluice ${R[sluice_stream.ttft_p50_ms]} ms; CPU per event: nginx ${R[nginx_stream.cpu_us]} µs," \
    "Sluice ${R[sluice_stream.cpu_us]} µs (${R[sluice_stream.events]} events in ${R[sluice_stream.streams]} streams)"

# ---------------------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------------------
calc() { awk "BEGIN { printf \"$1\", $2 }"; }
verdict() { awk "BEGIN { print (($1) ? \"PASS\" : \"**FAIL**\") }"; }
plain_verdict() { awk "BEGIN { print (($1) ? \"PASS\" : \"FAIL\") }"; }

# X − direct and X ÷ direct for nginx and Sluice. Added p50 at c1 and the c64 ratio are medians of
# per-round values (R[added_c1.*], R[ratio_cN.*]); the rest are differences of the medians.
for t in nginx "${SLUICES[@]}"; do
    R[$t.add_p50_c1]=$(calc '%+.3f' "${R[added_c1.$t]}")
    R[$t.add_p99_c1]=$(calc '%+.3f' "${R[${t}_c1.p99_ms]} - ${R[direct_c1.p99_ms]}")
    R[$t.add_p50_cN]=$(calc '%+.3f' "${R[${t}_cN.p50_ms]} - ${R[direct_cN.p50_ms]}")
    R[$t.add_p99_cN]=$(calc '%+.3f' "${R[${t}_cN.p99_ms]} - ${R[direct_cN.p99_ms]}")
    R[$t.ratio_c1]=$(calc '%.1f' "100 * ${R[${t}_c1.rps]} / ${R[direct_c1.rps]}")
    R[$t.ratio_cN]=$(calc '%.1f' "100 * ${R[ratio_cN.$t]}")
    R[$t.add_ttfb_p50]=$(calc '%+.3f' "${R[${t}_stream.p50_ms]} - ${R[direct_stream.p50_ms]}")
    R[$t.add_ttfb_p99]=$(calc '%+.3f' "${R[${t}_stream.p99_ms]} - ${R[direct_stream.p99_ms]}")
    R[$t.add_ttft_p50]=$(calc '%+.3f' "${R[${t}_stream.ttft_p50_ms]} - ${R[direct_stream.ttft_p50_ms]}")
done
RSS_IDLE=${RSS_IDLE_MIB[sluice]}
RSS_LOAD=${RSS_LOAD_MIB[sluice]}

# SPEC §19 NF-1 / NF-2 (absolute), for Sluice
V_P50=$(verdict "${R[sluice.add_p50_c1]} <= 0.15")
V_P99=$(verdict "${R[sluice.add_p99_c1]} <= 1")
V_TPUT=$(verdict "${R[sluice.ratio_cN]} >= 40")
V_TTFB=$(verdict "${R[sluice.add_ttfb_p50]} <= 1")
V_RSS=$(verdict "$RSS_IDLE <= 150")

# Issue 26: every target relative to this run (direct, the nginx control, the single instance)
NGINX_ADD=${R[nginx.add_p50_c1]}
SLUICE_ADD=${R[sluice.add_p50_c1]}
LIMIT_3X=$(calc '%.3f' "3 * $NGINX_ADD + 0.05")
LIMIT_2X=$(calc '%.3f' "2 * $NGINX_ADD + 0.05")
if awk -v n="$NGINX_ADD" 'BEGIN { exit !(n > 0) }'; then
    SLUICE_PER_NGINX="$(calc '%.1f' "$SLUICE_ADD / $NGINX_ADD") x nginx's"
else
    SLUICE_PER_NGINX="n/a: nginx added nothing measurable"
fi
RATIO_CN_SLUICE=$(calc '%.2f' "${R[ratio_cN.sluice]}")
RATIO_CN_NGINX=$(calc '%.2f' "${R[ratio_cN.nginx]}")
P99_PER_NGINX=$(calc '%.2f' "${R[p99_cN.sluice_per_nginx]}")
# CPU per non-streaming request: the target holds for every request, so the larger of c1 and cN
CPU_C1=${R[sluice_c1.cpu_us]}
CPU_CN=${R[sluice_cN.cpu_us]}
CPU_MAX=$(calc '%.1f' "($CPU_C1 > $CPU_CN ? $CPU_C1 : $CPU_CN)")
# without the JIT compiler threads: what is left once the code is compiled (a short run's JIT is
# mostly warm-up, and on a loaded machine it compiles for longer)
CPU_C1_NOJIT=$(calc '%.1f' "$CPU_C1 - ${R[sluice_c1.g_us.jit]:-0}")
CPU_CN_NOJIT=$(calc '%.1f' "$CPU_CN - ${R[sluice_cN.g_us.jit]:-0}")
CPU_TEXT="Sluice CPU per non-streaming request ${CPU_MAX} µs (c1 $(calc '%.1f' "$CPU_C1"), c${HIGH_C} $(calc '%.1f' "$CPU_CN"); without JIT threads c1 ${CPU_C1_NOJIT}, c${HIGH_C} ${CPU_CN_NOJIT})"
CPU_NGINX_TEXT="nginx worker c1 $(calc '%.1f' "${R[nginx_c1.cpu_us]}"), c${HIGH_C} $(calc '%.1f' "${R[nginx_cN.cpu_us]}") µs"
TTFT_ADD=$(calc '%+.3f' "${R[sluice_stream.ttft_p50_ms]} - ${R[direct_stream.ttft_p50_ms]}")
TARGET_LINES=(
    "$(plain_verdict "${R[ratio_cN.sluice]} >= 0.5")  c${HIGH_C} throughput: Sluice ${RATIO_CN_SLUICE} x direct >= 0.50 x direct  [nginx ${RATIO_CN_NGINX} x direct]"
    "$(plain_verdict "${R[ratio_cN.sluice]} >= 0.65")  (stretch) c${HIGH_C} throughput: Sluice ${RATIO_CN_SLUICE} x direct >= 0.65 x direct"
    "$(plain_verdict "$SLUICE_ADD <= $LIMIT_3X")  Sluice added p50 at c1 ${SLUICE_ADD} ms <= 3 x nginx's (${NGINX_ADD} ms) + 0.05 ms = ${LIMIT_3X} ms  [Sluice = ${SLUICE_PER_NGINX}]"
    "$(plain_verdict "$SLUICE_ADD <= $LIMIT_2X")  (stretch) Sluice added p50 at c1 ${SLUICE_ADD} ms <= 2 x nginx's (${NGINX_ADD} ms) + 0.05 ms = ${LIMIT_2X} ms"
    "$(plain_verdict "${R[p99_cN.sluice_per_nginx]} <= 3")  c${HIGH_C} p99: Sluice ${R[sluice_cN.p99_ms]} ms <= 3 x nginx's ${R[nginx_cN.p99_ms]} ms  [Sluice = ${P99_PER_NGINX} x nginx's, median of the rounds' ratios]"
    "$(plain_verdict "$CPU_MAX <= 100")  ${CPU_TEXT} <= 100 µs  [${CPU_NGINX_TEXT}]"
    "$(plain_verdict "$CPU_MAX <= 60")  (stretch) Sluice CPU per non-streaming request ${CPU_MAX} µs <= 60 µs"
    "$(plain_verdict "$TTFT_ADD <= 1")  streaming time to the first content token: Sluice ${TTFT_ADD} ms over direct <= 1 ms  [p50 ${R[sluice_stream.ttft_p50_ms]} vs ${R[direct_stream.ttft_p50_ms]} ms; first byte ${R[sluice.add_ttfb_p50]} ms]"
    "$(plain_verdict "$RSS_IDLE <= 150")  Sluice idle RSS ${RSS_IDLE} MiB <= 150 MiB"
    "$(plain_verdict "$RSS_LOAD <= 200")  Sluice RSS under load (the most during the rounds) ${RSS_LOAD} MiB <= 200 MiB"
)
TARGETS_TITLE="Targets of issue 26 (against direct and the nginx control of this run)"
# The regression guard (--quick in CI): only a gross regression, measured in this run, fails it
GUARD_LINES=(
    "$(plain_verdict "$CPU_CN_NOJIT <= 400")  guard: Sluice CPU per request at c${HIGH_C} without the JIT compiler threads ${CPU_CN_NOJIT} µs <= 4 x 100 µs  [with them $(calc '%.1f' "$CPU_CN") µs]"
    "$(plain_verdict "${R[ratio_cN.sluice]} >= 0.1 * ${R[ratio_cN.nginx]}")  guard: c${HIGH_C} throughput Sluice ${RATIO_CN_SLUICE} x direct >= 0.1 x nginx's ${RATIO_CN_NGINX} x direct"
)
# rounds_list FORMAT "V V V": "v / v / v", formatted
rounds_list() { awk -v f="$1" -v l="$2" 'BEGIN { n = split(l, v, " "); for (i = 1; i <= n; i++) printf "%s" f, (i > 1 ? " / " : ""), v[i] }'; }
ROUND_TARGETS="direct / nginx"
ROUND_LABELS=(direct_c1 nginx_c1 direct_cN nginx_cN)
for t in "${SLUICES[@]}"; do
    ROUND_TARGETS+=" / ${S_NAME[$t]}"
    ROUND_LABELS+=("${t}_c1" "${t}_cN")
done
ROUND_RUNS=${#ROUND_LABELS[@]}
# OTHER − first at c1 (median of the rounds' p50 differences) and OTHER ÷ first req/s at cN
for t in "${OTHER_SLUICES[@]}"; do
    R[$t.minus_first_c1]=$(calc '%+.3f' "${R[minus_first_c1.$t]}")
    R[$t.per_first_cN]=$(calc '%.2f' "${R[per_first_cN.$t]}")
done
if [[ $SHARED == 1 ]]; then
    # issue 26 (was issue 20's < 0.5 ms): shared mode's added p50 at c1 minus the single
    # instance's, within each round (= shared p50 - single p50 of the round: direct cancels out),
    # median of the rounds; and shared ÷ single req/s at cN, within each round
    TARGET_LINES+=(
        "$(plain_verdict "${R[minus_first_c1.sluice_shared]} <= 0.1")  shared mode added p50 at c1 ${R[sluice_shared.add_p50_c1]} ms - single-instance added p50 ${SLUICE_ADD} ms = ${R[sluice_shared.minus_first_c1]} ms <= 0.1 ms  [median of the rounds' differences $(rounds_list '%+.3f' "${R[minus_first_c1.sluice_shared.rounds]}") ms]"
        "$(plain_verdict "${R[per_first_cN.sluice_shared]} >= 0.8")  shared mode c${HIGH_C} throughput ${R[sluice_shared.per_first_cN]} x single >= 0.80 x single  [rounds $(rounds_list '%.2f' "${R[per_first_cN.sluice_shared.rounds]}"); CPU per request shared c1 $(calc '%.1f' "${R[sluice_shared_c1.cpu_us]}"), c${HIGH_C} $(calc '%.1f' "${R[sluice_shared_cN.cpu_us]}") µs]"
    )
    TARGETS_TITLE="Targets of issue 26 (against direct, the nginx control and, for shared mode, the single instance of this run)"
    REDIS_TEXT="not counted (no redis-cli)"
    if [[ -n $REDIS_CLI ]]; then
        REDIS_TEXT=""
        for class in c1 cN; do
            n=${R[sluice_shared_$class.requests]}
            per=$(calc '%.2f' "${REDIS_CALLS[$class]:-0} / ($n > 0 ? $n : 1)")
            detail=$(for k in "${!REDIS_CALLS[@]}"; do
                [[ $k == "$class".* ]] || continue
                ((REDIS_CALLS[$k] > 0)) || continue
                printf '%s %s\n' "${k#"$class".}" "${REDIS_CALLS[$k]}"
            done | sort -k2,2nr | awk -v n="$n" '$2 / (n > 0 ? n : 1) >= 0.005 { printf "%s%s %.2f", (shown++ ? ", " : ""), toupper($1), $2 / (n > 0 ? n : 1) }')
            REDIS_TEXT+="${REDIS_TEXT:+; }${class/N/$HIGH_C} $per per request (${detail:-none})"
        done
    fi
fi

LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
# "nginx, X, Y and Z": the servers under test besides the mocks
SERVERS=(nginx)
for t in "${SLUICES[@]}"; do SERVERS+=("${S_NAME[$t]}"); done
if [[ $SHARED == 1 ]]; then SERVERS+=("PostgreSQL $PG_VERSION" "Redis ${REDIS_VERSION:-?}"); fi
SERVERS_TEXT=$(printf '%s, ' "${SERVERS[@]:0:${#SERVERS[@]}-1}")
SERVERS_TEXT="${SERVERS_TEXT%, } and ${SERVERS[-1]}"
CPU_MODEL=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -n 1)
JAVA_VERSION=$("$JAVA" -version 2>&1 | head -n 1)
WRK_VERSION=$({ wrk -v 2>&1 || true; } | head -n 1 | awk '{ print $1, $2 }')
CURL_VERSION=$(curl --version | head -n 1 | awk '{ print $1, $2 }')
SLUICE_JAVA_OPTS=$(tr '\0' ' ' <"/proc/$SLUICE_PID/cmdline" 2>/dev/null | grep -o -- ' -X[^ ]*' | tr -d '\n' || true)
if ((${#INVALID[@]} > 0)); then
    VALIDITY="**INVALID RUN** — $(IFS=';'; echo "${INVALID[*]}")"
else
    VALIDITY="valid (no wrk errors or non-2xx answers; all streams complete)"
fi

# mock_cpu TARGET: the mock's CPU per request at c1 / cN / per stream event, in TARGET's runs
mock_cpu() { echo "${R[${1}_c1.mock_cpu_us]} / ${R[${1}_cN.mock_cpu_us]} / ${R[${1}_stream.mock_cpu_us]}"; }
# cpu_group_table: Sluice's CPU by thread group, µs per request (streams: per event)
cpu_group_table() {
    local cols=() heads="" g l row t p
    for t in "${SLUICES[@]}"; do
        cols+=("${t}_c1" "${t}_cN" "${t}_stream")
        p=${S_SHORT[$t]:+${S_SHORT[$t]} }
        heads+="${heads:+ | }${p}c1 | ${p}c${HIGH_C} | ${p}stream, per event"
    done
    echo "Sluice's CPU by thread group (µs per request, median of the rounds; a thread's group by its name in" \
        "/proc/<pid>/task/<tid>/comm, cut to 15 characters by the kernel): **request** = the virtual-thread carriers" \
        "(ForkJoinPool-*) and the JDK's I/O pollers, where Helidon runs every request; **sluice-…** = each of" \
        "Sluice's named background threads; **helidon** = the listener (server-@…) and Helidon's timers; **gc** =" \
        "GC threads and the VM Thread (where Serial GC collects; it also runs other safepoint work); **jit** = the C1/C2" \
        "compiler threads; **other** = the rest (the main thread, signal and reference handlers, …); **exited, rounding** =" \
        "the process total minus its live threads: threads that ended during a run (their CPU is only in the" \
        "process total, their names are lost) and the kernel's rounding (it scales each thread's and the" \
        "process's ticks to the scheduler's run time separately: ± a few ticks, noticeable only in short runs)."
    echo
    echo "| Thread group | $heads |"
    echo "|---|$(for l in "${cols[@]}"; do printf -- '---:|'; done)"
    row="| **total (process)** |"
    for l in "${cols[@]}"; do row+=" **${R[$l.cpu_us]:-}** |"; done
    echo "$row"
    for g in request $(printf '%s\n' "${!CPU_GROUPS[@]}" | grep '^sluice-' | sort) helidon gc jit other exited; do
        [[ -n ${CPU_GROUPS[$g]:-} ]] || continue
        row="| ${g/#exited/exited, rounding} |"
        for l in "${cols[@]}"; do row+=" ${R[$l.g_us.$g]:-0} |"; done
        echo "$row"
    done
    row="| threads born, exited during the runs |"
    for l in "${cols[@]}"; do row+=" ${R[$l.thread_churn]:-} |"; done
    echo "$row"
}
# round_table: per round, p50 at c1 and req/s at cN of every target, every Sluice's CPU per request
round_table() {
    local r t l f row head="| Round | direct c1 p50 | nginx c1 p50 |" cN_head="direct c${HIGH_C} | nginx c${HIGH_C} |" cpu_head=""
    for t in "${SLUICES[@]}"; do
        head+=" ${S_NAME[$t]} c1 p50 |"
        cN_head+=" ${S_NAME[$t]} c${HIGH_C} |"
        cpu_head+=" ${S_NAME[$t]} CPU µs c1 / c${HIGH_C} |"
    done
    echo "$head $cN_head$cpu_head other CPU |"
    echo "|---:|$(for _ in "${ROUND_LABELS[@]}" "${SLUICES[@]}"; do printf -- '---:|'; done)---:|"
    for ((r = 1; r <= ROUNDS; r++)); do
        f=0
        for l in "${ROUND_LABELS[@]}"; do
            f=$(awk -v a="$f" -v b="${R[${l}_r$r.foreign_pct]}" 'BEGIN { print (b > a ? b : a) }')
        done
        row="| $r |"
        for t in direct nginx "${SLUICES[@]}"; do row+=" ${R[${t}_c1_r$r.p50_ms]} |"; done
        for t in direct nginx "${SLUICES[@]}"; do row+=" ${R[${t}_cN_r$r.rps]} |"; done
        for t in "${SLUICES[@]}"; do row+=" ${R[${t}_c1_r$r.cpu_us]} / ${R[${t}_cN_r$r.cpu_us]} |"; done
        echo "$row $f % |"
    done
}
# minus X Y FORMAT: X − Y, formatted
minus() { calc "$3" "$1 - $2"; }
# compare_table OTHER HEAD_FIRST HEAD_OTHER HEAD_DIFF FIRST_WORD: the first Sluice and another one
# (shared mode, B) side by side, against direct and against each other
compare_table() {
    local o=$1 f=sluice
    echo "| Measurement | Direct (mock) | $2 | $3 | ${S_NAME[$f]} − direct / ratio | ${S_NAME[$o]} − direct / ratio | $4 |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
    echo "| c1 throughput (req/s) | ${R[direct_c1.rps]} | ${R[${f}_c1.rps]} | ${R[${o}_c1.rps]} | ${R[$f.ratio_c1]} % | ${R[$o.ratio_c1]} % | |"
    echo "| c1 latency p50 (ms) | ${R[direct_c1.p50_ms]} | ${R[${f}_c1.p50_ms]} | ${R[${o}_c1.p50_ms]} | ${R[$f.add_p50_c1]} ms | ${R[$o.add_p50_c1]} ms | ${R[$o.minus_first_c1]} ms |"
    echo "| c1 latency p99 (ms) | ${R[direct_c1.p99_ms]} | ${R[${f}_c1.p99_ms]} | ${R[${o}_c1.p99_ms]} | ${R[$f.add_p99_c1]} ms | ${R[$o.add_p99_c1]} ms | $(minus "${R[${o}_c1.p99_ms]}" "${R[${f}_c1.p99_ms]}" '%+.3f') ms |"
    echo "| c${HIGH_C} throughput (req/s) | ${R[direct_cN.rps]} | ${R[${f}_cN.rps]} | ${R[${o}_cN.rps]} | ${R[$f.ratio_cN]} % | ${R[$o.ratio_cN]} % | ${R[$o.per_first_cN]} × $5 |"
    echo "| c${HIGH_C} latency p50 (ms) | ${R[direct_cN.p50_ms]} | ${R[${f}_cN.p50_ms]} | ${R[${o}_cN.p50_ms]} | ${R[$f.add_p50_cN]} ms | ${R[$o.add_p50_cN]} ms | $(minus "${R[${o}_cN.p50_ms]}" "${R[${f}_cN.p50_ms]}" '%+.3f') ms |"
    echo "| c${HIGH_C} latency p99 (ms) | ${R[direct_cN.p99_ms]} | ${R[${f}_cN.p99_ms]} | ${R[${o}_cN.p99_ms]} | ${R[$f.add_p99_cN]} ms | ${R[$o.add_p99_cN]} ms | $(minus "${R[${o}_cN.p99_ms]}" "${R[${f}_cN.p99_ms]}" '%+.3f') ms |"
    echo "| streaming TTFB p50 (ms) | ${R[direct_stream.p50_ms]} | ${R[${f}_stream.p50_ms]} | ${R[${o}_stream.p50_ms]} | ${R[$f.add_ttfb_p50]} ms | ${R[$o.add_ttfb_p50]} ms | $(minus "${R[${o}_stream.p50_ms]}" "${R[${f}_stream.p50_ms]}" '%+.3f') ms |"
    echo "| streaming TTFB p99 (ms) | ${R[direct_stream.p99_ms]} | ${R[${f}_stream.p99_ms]} | ${R[${o}_stream.p99_ms]} | ${R[$f.add_ttfb_p99]} ms | ${R[$o.add_ttfb_p99]} ms | $(minus "${R[${o}_stream.p99_ms]}" "${R[${f}_stream.p99_ms]}" '%+.3f') ms |"
    echo "| streaming first content token p50 (ms) | ${R[direct_stream.ttft_p50_ms]} | ${R[${f}_stream.ttft_p50_ms]} | ${R[${o}_stream.ttft_p50_ms]} | ${R[$f.add_ttft_p50]} ms | ${R[$o.add_ttft_p50]} ms | $(minus "${R[${o}_stream.ttft_p50_ms]}" "${R[${f}_stream.ttft_p50_ms]}" '%+.3f') ms |"
    echo "| c1 CPU per request (µs) | | ${R[${f}_c1.cpu_us]} | ${R[${o}_c1.cpu_us]} | | | $(minus "${R[${o}_c1.cpu_us]}" "${R[${f}_c1.cpu_us]}" '%+.1f') µs |"
    echo "| c${HIGH_C} CPU per request (µs) | | ${R[${f}_cN.cpu_us]} | ${R[${o}_cN.cpu_us]} | | | $(minus "${R[${o}_cN.cpu_us]}" "${R[${f}_cN.cpu_us]}" '%+.1f') µs |"
    echo "| streaming CPU per event (µs) | | ${R[${f}_stream.cpu_us]} | ${R[${o}_stream.cpu_us]} | | | $(minus "${R[${o}_stream.cpu_us]}" "${R[${f}_stream.cpu_us]}" '%+.1f') µs |"
    echo "| RSS idle (MiB) | | ${RSS_IDLE_MIB[$f]} | ${RSS_IDLE_MIB[$o]} | | | $(minus "${RSS_IDLE_MIB[$o]}" "${RSS_IDLE_MIB[$f]}" '%+.1f') MiB |"
    echo "| RSS max during the rounds (MiB) | | ${RSS_LOAD_MIB[$f]} | ${RSS_LOAD_MIB[$o]} | | | $(minus "${RSS_LOAD_MIB[$o]}" "${RSS_LOAD_MIB[$f]}" '%+.1f') MiB |"
    echo "| errors: c1 / c${HIGH_C} / streams | $(errs direct) | $(errs "$f") | $(errs "$o") | | | |"
}
# compare_note OTHER OTHER_WORD FIRST_WORD: the per-round values of compare_table, and OTHER's counts
compare_note() {
    local o=$1
    echo "Per round: $2 − $3 at c1 $(rounds_list '%+.3f' "${R[minus_first_c1.$o.rounds]}") ms;" \
        "$2 ÷ $3 at c${HIGH_C} $(rounds_list '%.2f' "${R[per_first_cN.$o.rounds]}")." \
        "Other processes' CPU during ${S_NAME[$o]}'s runs (the most of the rounds): c1 ${R[${o}_c1.foreign_pct]} %," \
        "c${HIGH_C} ${R[${o}_cN.foreign_pct]} %, streams ${R[${o}_stream.foreign_pct]} %." \
        "Requests measured (all rounds): ${R[${o}_c1.requests]} (c1), ${R[${o}_cN.requests]} (c${HIGH_C});" \
        "max latency at c${HIGH_C} ${R[${o}_cN.max_ms]} ms. TCP connections opened by the streams: ${R[${o}_stream.connects]}."
}
# ab_table OTHER: the short A/B table (BENCH_SLUICE_ZIP_B), the first Sluice against OTHER
ab_table() {
    local o=$1 f=sluice
    echo "| A/B, same run | Sluice $A_LABEL | Sluice $B_LABEL | $B_LABEL − $A_LABEL |"
    echo "|---|---:|---:|---:|"
    echo "| CPU per request c1 (µs) | ${R[${f}_c1.cpu_us]} | ${R[${o}_c1.cpu_us]} | $(minus "${R[${o}_c1.cpu_us]}" "${R[${f}_c1.cpu_us]}" '%+.1f') |"
    echo "| CPU per request c${HIGH_C} (µs) | ${R[${f}_cN.cpu_us]} | ${R[${o}_cN.cpu_us]} | $(minus "${R[${o}_cN.cpu_us]}" "${R[${f}_cN.cpu_us]}" '%+.1f') |"
    echo "| c${HIGH_C} req/s | ${R[${f}_cN.rps]} | ${R[${o}_cN.rps]} | ${R[$o.per_first_cN]} × $A_LABEL |"
    echo "| c${HIGH_C} ÷ direct | $(calc '%.2f' "${R[ratio_cN.$f]}") | $(calc '%.2f' "${R[ratio_cN.$o]}") | $(minus "${R[ratio_cN.$o]}" "${R[ratio_cN.$f]}" '%+.2f') |"
    echo "| c1 added p50 (ms) | ${R[$f.add_p50_c1]} | ${R[$o.add_p50_c1]} | ${R[$o.minus_first_c1]} |"
    echo "| c${HIGH_C} p99 (ms) | ${R[${f}_cN.p99_ms]} | ${R[${o}_cN.p99_ms]} | $(minus "${R[${o}_cN.p99_ms]}" "${R[${f}_cN.p99_ms]}" '%+.3f') |"
    echo "| first content token over direct, p50 (ms) | ${R[$f.add_ttft_p50]} | ${R[$o.add_ttft_p50]} | $(minus "${R[$o.add_ttft_p50]}" "${R[$f.add_ttft_p50]}" '%+.3f') |"
    echo "| RSS idle / max under load (MiB) | ${RSS_IDLE_MIB[$f]} / ${RSS_LOAD_MIB[$f]} | ${RSS_IDLE_MIB[$o]} / ${RSS_LOAD_MIB[$o]} | $(minus "${RSS_IDLE_MIB[$o]}" "${RSS_IDLE_MIB[$f]}" '%+.1f') / $(minus "${RSS_LOAD_MIB[$o]}" "${RSS_LOAD_MIB[$f]}" '%+.1f') |"
}
e() { echo "${R[$1.errors]}"; }
errs() { echo "$(e "${1}_c1") / $(e "${1}_cN") / $(e "${1}_stream")"; }
FOREIGN_MAX=0
FOREIGN_LABELS=(direct_stream nginx_stream "${ROUND_LABELS[@]}")
for t in "${SLUICES[@]}"; do FOREIGN_LABELS+=("${t}_stream"); done
for l in "${FOREIGN_LABELS[@]}"; do
    FOREIGN_MAX=$(awk -v a="$FOREIGN_MAX" -v b="${R[$l.foreign_pct]}" 'BEGIN { print (b > a ? b : a) }')
done
{
    echo "## Sluice benchmark$(quick '' ' (--quick)') — $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo
    echo "Machine: $(nproc) CPUs, ${CPU_MODEL:-unknown CPU}; $JAVA_VERSION; $WRK_VERSION; $CURL_VERSION; nginx $NGINX_VERSION."
    echo "Client (wrk/curl), mock upstreams, ${SERVERS_TEXT} all share these CPUs, on loopback" \
        "(127.0.0.1)$( ((${#SLUICES[@]} == 1)) || echo "; every Sluice instance runs during the whole run")." \
        "Load average (1/5/15 min) before the run: $LOAD_BEFORE; after: $LOAD_AFTER."
    echo "Mock upstreams: ${MOCK_TEXT}."
    if [[ -n $SLUICE_ZIP_B ]]; then
        echo "Sluice $A_LABEL: ${BENCH_SLUICE_HOME:-$SLUICE_ZIP}; Sluice $B_LABEL: $SLUICE_ZIP_B (BENCH_SLUICE_ZIP_B);" \
            "both single instances on SQLite with the same settings, providers and mocks."
    fi
    echo "Settings: ${ROUNDS} interleaved rounds of ${ROUND_TARGETS}, ${DURATION} per wrk run, after a ${WARMUP}" \
        "warm-up per target at c${HIGH_C} (Sluice: ${SLUICE_WARMUP}); wrk -t1 at c1, -t${WRK_THREADS} at c${HIGH_C}; every value is the median" \
        "of the rounds (added p50 at c1 and the c${HIGH_C} ratio: the median of the per-round values)." \
        "${STREAM_N} sequential streaming requests" \
        "per target (after ${STREAM_WARMUP_N} warm-up) over one keep-alive connection, mock stream" \
        "of ${STREAM_PIECES} pieces ${STREAM_DELAY_MS} ms apart (TCP connections opened: direct" \
        "${R[direct_stream.connects]}, nginx ${R[nginx_stream.connects]}, Sluice ${R[sluice_stream.connects]}; whole stream p50: direct" \
        "${R[direct_stream.total_p50_ms]} ms, nginx ${R[nginx_stream.total_p50_ms]} ms, Sluice ${R[sluice_stream.total_p50_ms]} ms)." \
        "Sluice JVM options:${SLUICE_JAVA_OPTS:- (none found)}. nginx: 1 worker, upstream keepalive, HTTP/1.1, proxy_buffering off."
    echo "Validity: $VALIDITY."
    echo
    echo "### $TARGETS_TITLE"
    echo
    echo '```'
    printf '%s\n' "${TARGET_LINES[@]}"
    echo '```'
    echo
    echo "Regression guard (exit status 4 if a line fails: a gross regression, not a missed target):"
    echo
    echo '```'
    printf '%s\n' "${GUARD_LINES[@]}"
    echo '```'
    echo
    echo "### SPEC §19 NF-1 / NF-2"
    echo
    echo "| Measurement | Direct (mock) | nginx (control) | ${S_NAME[sluice]} | nginx − direct / ratio | ${S_NAME[sluice]} − direct / ratio | SPEC target (Sluice) | Result |"
    echo "|---|---:|---:|---:|---:|---:|---|---|"
    echo "| c1 throughput (req/s) | ${R[direct_c1.rps]} | ${R[nginx_c1.rps]} | ${R[sluice_c1.rps]} | ${R[nginx.ratio_c1]} % | ${R[sluice.ratio_c1]} % | | |"
    echo "| c1 latency p50 (ms) | ${R[direct_c1.p50_ms]} | ${R[nginx_c1.p50_ms]} | ${R[sluice_c1.p50_ms]} | ${R[nginx.add_p50_c1]} ms | ${R[sluice.add_p50_c1]} ms | added ≤ 0.15 ms | $V_P50 |"
    echo "| c1 latency p99 (ms) | ${R[direct_c1.p99_ms]} | ${R[nginx_c1.p99_ms]} | ${R[sluice_c1.p99_ms]} | ${R[nginx.add_p99_c1]} ms | ${R[sluice.add_p99_c1]} ms | added ≤ 1 ms | $V_P99 |"
    echo "| c${HIGH_C} throughput (req/s) | ${R[direct_cN.rps]} | ${R[nginx_cN.rps]} | ${R[sluice_cN.rps]} | ${R[nginx.ratio_cN]} % | ${R[sluice.ratio_cN]} % | ≥ 40 % of direct | $V_TPUT |"
    echo "| c${HIGH_C} latency p50 (ms) | ${R[direct_cN.p50_ms]} | ${R[nginx_cN.p50_ms]} | ${R[sluice_cN.p50_ms]} | ${R[nginx.add_p50_cN]} ms | ${R[sluice.add_p50_cN]} ms | | |"
    echo "| c${HIGH_C} latency p99 (ms) | ${R[direct_cN.p99_ms]} | ${R[nginx_cN.p99_ms]} | ${R[sluice_cN.p99_ms]} | ${R[nginx.add_p99_cN]} ms | ${R[sluice.add_p99_cN]} ms | | |"
    echo "| streaming TTFB p50 (ms) | ${R[direct_stream.p50_ms]} | ${R[nginx_stream.p50_ms]} | ${R[sluice_stream.p50_ms]} | ${R[nginx.add_ttfb_p50]} ms | ${R[sluice.add_ttfb_p50]} ms | added ≤ 1 ms | $V_TTFB |"
    echo "| streaming TTFB p99 (ms) | ${R[direct_stream.p99_ms]} | ${R[nginx_stream.p99_ms]} | ${R[sluice_stream.p99_ms]} | ${R[nginx.add_ttfb_p99]} ms | ${R[sluice.add_ttfb_p99]} ms | | |"
    echo "| streaming first content token p50 (ms) | ${R[direct_stream.ttft_p50_ms]} | ${R[nginx_stream.ttft_p50_ms]} | ${R[sluice_stream.ttft_p50_ms]} | $(calc '%+.3f' "${R[nginx_stream.ttft_p50_ms]} - ${R[direct_stream.ttft_p50_ms]}") ms | ${TTFT_ADD} ms | added ≤ 1 ms (issue 26) | $(verdict "$TTFT_ADD <= 1") |"
    echo "| c1 CPU per request, proxy (µs) | | ${R[nginx_c1.cpu_us]} | ${R[sluice_c1.cpu_us]} | | | ≤ 100 µs (issue 26) | $(verdict "$CPU_C1 <= 100") |"
    echo "| c${HIGH_C} CPU per request, proxy (µs) | | ${R[nginx_cN.cpu_us]} | ${R[sluice_cN.cpu_us]} | | | ≤ 100 µs (issue 26) | $(verdict "$CPU_CN <= 100") |"
    echo "| streaming CPU per event, proxy (µs) | | ${R[nginx_stream.cpu_us]} | ${R[sluice_stream.cpu_us]} | | | | |"
    echo "| c1 / c${HIGH_C} / stream CPU of the mock, per request or event (µs) | $(mock_cpu direct) | $(mock_cpu nginx) | $(mock_cpu sluice) | | | | |"
    echo "| Sluice RSS idle (MiB) | | | ${RSS_IDLE} | | | ≤ 150 MiB | $V_RSS |"
    echo "| Sluice RSS max during the rounds (MiB) | | | ${RSS_LOAD} | | | ≤ 200 MiB (issue 26) | $(verdict "$RSS_LOAD <= 200") |"
    echo "| errors: c1 / c${HIGH_C} / streams | $(errs direct) | $(errs nginx) | $(errs sluice) | | | 0 | |"
    echo
    echo "CPU per request: utime+stime (from /proc, ${CLK_TCK} ticks a second) that the process used from just before" \
        "each measured run until ${CPU_SETTLE} s after it, ÷ the requests wrk counted (streams: ÷ the SSE events the client" \
        "received, $(calc '%.1f' "${R[sluice_stream.events]} / (${R[sluice_stream.streams]} > 0 ? ${R[sluice_stream.streams]} : 1)") a stream through Sluice;" \
        "per stream: Sluice $(us_per "${R[sluice_stream.proxy_ticks]}" "${R[sluice_stream.streams]}") µs). Proxy: the Sluice JVM," \
        "nginx's one worker. Median of the rounds. Resolution: one tick ÷ the units of one run, for Sluice" \
        "$(us_per 1 "$((R[sluice_c1.requests] / ROUNDS))") µs at c1, $(us_per 1 "$((R[sluice_cN.requests] / ROUNDS))") µs at c${HIGH_C}," \
        "$(us_per 1 "${R[sluice_stream.events]}") µs per event."
    echo
    cpu_group_table
    echo
    echo "Per round (p50 at c1 in ms; req/s at c${HIGH_C}; % CPU of other processes, the most during the round's ${ROUND_RUNS} runs):"
    echo
    round_table
    echo
    echo "CPU used by other processes on the machine during each measurement (% of all CPUs, the most of" \
        "the rounds; hypervisor steal in brackets): c1 direct ${R[direct_c1.foreign_pct]} (${R[direct_c1.steal_pct]})," \
        "nginx ${R[nginx_c1.foreign_pct]} (${R[nginx_c1.steal_pct]}), Sluice ${R[sluice_c1.foreign_pct]} (${R[sluice_c1.steal_pct]});" \
        "c${HIGH_C} direct ${R[direct_cN.foreign_pct]} (${R[direct_cN.steal_pct]}), nginx ${R[nginx_cN.foreign_pct]}" \
        "(${R[nginx_cN.steal_pct]}), Sluice ${R[sluice_cN.foreign_pct]} (${R[sluice_cN.steal_pct]}); streams direct" \
        "${R[direct_stream.foreign_pct]} (${R[direct_stream.steal_pct]}), nginx ${R[nginx_stream.foreign_pct]}" \
        "(${R[nginx_stream.steal_pct]}), Sluice ${R[sluice_stream.foreign_pct]}" \
        "(${R[sluice_stream.steal_pct]})$(awk -v m="$FOREIGN_MAX" 'BEGIN { if (m > 5) printf " — **the machine was not quiet (up to %s %%): compare with care**", m }')."
    echo
    echo "Requests measured (all rounds): direct ${R[direct_c1.requests]} (c1), ${R[direct_cN.requests]} (c${HIGH_C});" \
        "nginx ${R[nginx_c1.requests]} (c1), ${R[nginx_cN.requests]} (c${HIGH_C});" \
        "Sluice ${R[sluice_c1.requests]} (c1), ${R[sluice_cN.requests]} (c${HIGH_C})." \
        "Max latency at c${HIGH_C}: direct ${R[direct_cN.max_ms]} ms, nginx ${R[nginx_cN.max_ms]} ms, Sluice ${R[sluice_cN.max_ms]} ms."
    if [[ $SHARED == 1 ]]; then
        echo
        echo "### Shared mode (issue 20): the same distribution on SQLite versus on PostgreSQL + Redis, same run"
        echo
        echo "\"Sluice\" is the single instance (SQLite, in-process state); \"Sluice shared\" the second instance of this run," \
            "with SLUICE_DATABASE_URL (PostgreSQL $PG_VERSION on $HOST:$PG_PORT, PostgreSQL's default settings) and" \
            "SLUICE_REDIS_URL (Redis ${REDIS_VERSION:-?} on $HOST:$REDIS_PORT, no persistence), provisioned alike (same mocks," \
            "providers, models). Both ran in every round, one after the other, on the same CPUs as everything else." \
            "\"Shared − single\" at c1 is the median of the per-round differences of p50 (direct cancels out)."
        echo
        compare_table sluice_shared "Sluice (single, SQLite)" "Sluice shared (PostgreSQL + Redis)" "Shared − single" single
        echo
        echo "$(compare_note sluice_shared shared single) Other processes' CPU: PostgreSQL and Redis count as ours." \
            "Redis calls (Redis's INFO commandstats around the measured runs): ${REDIS_TEXT}."
    fi
    if [[ -n $SLUICE_ZIP_B ]]; then
        echo
        echo "### Sluice $A_LABEL and Sluice $B_LABEL, same run"
        echo
        echo "Sluice $A_LABEL (the targets and the guard above are its) and Sluice $B_LABEL (BENCH_SLUICE_ZIP_B=$SLUICE_ZIP_B)," \
            "both single instances on SQLite, provisioned alike (same mocks, providers, models), measured one after the" \
            "other in every round on the same CPUs as everything else. $B_LABEL − $A_LABEL at c1 and $B_LABEL ÷ $A_LABEL" \
            "at c${HIGH_C} are the medians of the per-round values."
        echo
        ab_table sluice_b
        echo
        compare_table sluice_b "Sluice $A_LABEL" "Sluice $B_LABEL" "$B_LABEL − $A_LABEL" "$A_LABEL"
        echo
        compare_note sluice_b "$B_LABEL" "$A_LABEL"
    fi
} >"$RESULTS"

RAW_FILES=(sluice.log plain.log stream.log streamhot.log nginx/nginx.conf nginx/error.log)
if [[ $SHARED == 1 ]]; then RAW_FILES+=(sluice-shared.log redis.log pg/log pg/data/bench.conf); fi
if [[ -n $SLUICE_ZIP_B ]]; then RAW_FILES+=(sluice-b.log); fi
for f in "${RAW_FILES[@]}"; do
    printf '### %s\n%s\n\n' "$f" "$(cat "$TMP/$f" 2>/dev/null)" >>"$RAW_LOG"
done

cat "$RESULTS"
log "report written to $RESULTS (raw wrk/curl output in $RAW_LOG)"
printf '%s\n' "${TARGET_LINES[@]}" | while read -r line; do log "target: $line"; done
printf '%s\n' "${GUARD_LINES[@]}" | while read -r line; do log "$line"; done
if ((${#INVALID[@]} > 0)); then
    log "INVALID RUN: ${INVALID[*]}"
    exit 3
fi
GUARD_FAILED=()
for line in "${GUARD_LINES[@]}"; do
    if [[ $line == FAIL* ]]; then GUARD_FAILED+=("${line#FAIL  guard: }"); fi
done
if ((${#GUARD_FAILED[@]} > 0)); then
    log "REGRESSION GUARD FAILED (exit status 4): $(IFS=';'; echo "${GUARD_FAILED[*]}")"
    exit 4
fi
