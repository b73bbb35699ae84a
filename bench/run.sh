#!/usr/bin/env bash
# Sluice load benchmark (SPEC §19 NF-1 / NF-2): direct-to-mock versus through-Sluice, side by side
# in one run, on loopback (127.0.0.1) only. See docs/performance.md.
#
#   bench/run.sh                          # needs a built tree: mvn -B -DskipTests package
#   BENCH_DURATION=30s bench/run.sh       # longer measurements
#
# Environment knobs (defaults in brackets):
#   BENCH_DURATION [10s]        length of every measured wrk run
#   BENCH_WARMUP [5s]           wrk warm-up per target (at the high concurrency), not measured
#   BENCH_CONCURRENCY [64]      the high concurrency (the low one is always 1)
#   BENCH_WRK_THREADS [2]       wrk threads at the high concurrency (1 at concurrency 1)
#   BENCH_STREAM_N [200]        sequential streaming requests per target for TTFB
#   BENCH_STREAM_WARMUP_N [20]  streaming requests per target before the TTFB measurement
#   BENCH_STREAM_PIECES [5]     content pieces per mock stream
#   BENCH_STREAM_DELAY_MS [20]  delay between mock stream events (TTFB measures the first only)
#   BENCH_IDLE_SECONDS [5]      idle time before the idle RSS sample
#   BENCH_MOCK_JAVA_OPTS [-XX:+UseSerialGC -Xmx256m]  JVM options of the mock upstreams
#   BENCH_SLUICE_ZIP [distribution/target/sluice-0.1.0-SNAPSHOT.zip]
#   BENCH_SLUICE_HOME []        an already unpacked distribution (instead of the zip)
#   BENCH_TESTKIT_JAR [gateway-testkit/target/sluice-testkit-0.1.0-SNAPSHOT.jar]
#   BENCH_RESULTS [bench/results/latest.md]  where the Markdown report goes (raw log next to it)
#   BENCH_START_TIMEOUT [60]    seconds to wait for each process to report its port
#   BENCH_KEEP_TMP [0]          1 keeps the temporary directory (logs, data dir)
#   BENCH_QUIET_WAIT [0]        before the run and before every measurement, wait up to this many
#                               seconds for the machine to be quiet (other processes < 10 % CPU
#                               over 3 s); the report shows the CPU other processes used during
#                               every measurement either way
#
# Output: a Markdown report on stdout and in BENCH_RESULTS; wrk/curl raw output and the logs of
# Sluice and the mocks in the .log file next to it.
#
# Exit status: 0 = valid run (targets may still be missed: read the report), 3 = invalid run
# (wrk saw errors or non-2xx answers, or a streaming request failed), 2 = setup failure or a
# mock/Sluice exited during the run (then the report file says the run did not complete).
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
JAVA="$JAVA_HOME/bin/java"

DURATION=${BENCH_DURATION:-10s}
WARMUP=${BENCH_WARMUP:-5s}
HIGH_C=${BENCH_CONCURRENCY:-64}
WRK_THREADS=${BENCH_WRK_THREADS:-2}
STREAM_N=${BENCH_STREAM_N:-200}
STREAM_WARMUP_N=${BENCH_STREAM_WARMUP_N:-20}
STREAM_PIECES=${BENCH_STREAM_PIECES:-5}
STREAM_DELAY_MS=${BENCH_STREAM_DELAY_MS:-20}
IDLE_SECONDS=${BENCH_IDLE_SECONDS:-5}
MOCK_JAVA_OPTS=${BENCH_MOCK_JAVA_OPTS:--XX:+UseSerialGC -Xmx256m}
SLUICE_ZIP=${BENCH_SLUICE_ZIP:-$ROOT/distribution/target/sluice-0.1.0-SNAPSHOT.zip}
SLUICE_HOME_DIR=${BENCH_SLUICE_HOME:-}
TESTKIT_JAR=${BENCH_TESTKIT_JAR:-$ROOT/gateway-testkit/target/sluice-testkit-0.1.0-SNAPSHOT.jar}
RESULTS=${BENCH_RESULTS:-$BENCH_DIR/results/latest.md}
START_TIMEOUT=${BENCH_START_TIMEOUT:-60}
KEEP_TMP=${BENCH_KEEP_TMP:-0}
QUIET_WAIT=${BENCH_QUIET_WAIT:-0}

HOST=127.0.0.1 # loopback only, everywhere

log() { printf '[bench %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 2; }

# ---------------------------------------------------------------------------------------------
# Process bookkeeping: every process started here is stopped on exit, also on error.
# ---------------------------------------------------------------------------------------------
PIDS=()
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sluice-bench.XXXXXX")

cleanup() {
    local rc=$? pid i
    trap - EXIT INT TERM HUP
    trap '' PIPE # the reader of our output may be gone: still stop every process
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
        WAITED_PORT=$(sed -n "$sed_expr" "$file" 2>/dev/null | head -n 1)
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

# Starts a mock upstream; sets MOCK_PORT.
start_mock() {
    local name=$1
    shift
    # shellcheck disable=SC2086 # MOCK_JAVA_OPTS is a list of options
    "$JAVA" $MOCK_JAVA_OPTS -cp "$TESTKIT_JAR" dev.sluice.testkit.MockUpstreamMain --port 0 "$@" \
        >"$TMP/$name.log" 2>&1 &
    PIDS+=($!)
    wait_for_port "$TMP/$name.log" 's#^MockUpstream listening on http://127\.0\.0\.1:\([0-9][0-9]*\).*#\1#p' "$!" "mock $name"
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

# CPU accounting, to tell how much other processes on the machine disturbed a measurement.
# cpu_mark: remembers /proc/stat's user+nice+system, steal and total ticks, and the CPU ticks of
# our processes (the mocks and Sluice, alive; wrk, curl and the rest, reaped: `times`).
# cpu_since LABEL: sets R[LABEL.foreign_pct] (user+system CPU of other processes, % of all CPUs)
# and R[LABEL.steal_pct] (CPU taken by the hypervisor). IRQ/softirq time (loopback) is left out.
CLK_TCK=$(getconf CLK_TCK)
cpu_ticks() { # prints "busy steal total ours"
    local pid ours=0 t
    for pid in "${PIDS[@]}"; do
        t=$(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat" 2>/dev/null || echo 0)
        ours=$((ours + ${t:-0}))
    done
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
[[ -f $TESTKIT_JAR ]] || die "no mock upstream jar at $TESTKIT_JAR: build first (mvn -B -DskipTests package)"

if [[ -z $SLUICE_HOME_DIR ]]; then
    [[ -f $SLUICE_ZIP ]] || die "no distribution at $SLUICE_ZIP: build first (mvn -B -DskipTests package)"
    mkdir -p "$TMP/dist"
    if command -v unzip >/dev/null 2>&1; then
        unzip -q "$SLUICE_ZIP" -d "$TMP/dist"
    else
        (cd "$TMP/dist" && "$JAVA_HOME/bin/jar" xf "$SLUICE_ZIP")
    fi
    SLUICE_HOME_DIR=$(dirname "$(find "$TMP/dist" -path '*/bin/sluice' -type f | head -n 1)")
    SLUICE_HOME_DIR=$(dirname "$SLUICE_HOME_DIR")
fi
[[ -f $SLUICE_HOME_DIR/bin/sluice ]] || die "no bin/sluice under $SLUICE_HOME_DIR"
chmod +x "$SLUICE_HOME_DIR/bin/sluice"

# Other work on the machine distorts every number: say so, and optionally wait for quiet
# (BENCH_QUIET_WAIT) before every measurement.
wait_quiet() {
    local deadline=$((SECONDS + QUIET_WAIT))
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
start_mock plain
MOCK_PLAIN_PORT=$MOCK_PORT
WATCHED[${PIDS[-1]}]="mock upstream (echo)"
start_mock stream --stream-pieces "$STREAM_PIECES" --stream-delay-ms "$STREAM_DELAY_MS"
MOCK_STREAM_PORT=$MOCK_PORT
WATCHED[${PIDS[-1]}]="mock upstream (stream)"
log "mock upstreams on ports $MOCK_PLAIN_PORT (echo) and $MOCK_STREAM_PORT (stream)"

ADMIN_KEY=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
mkdir -p "$TMP/data"
SLUICE_PORT=0 SLUICE_HOST=$HOST SLUICE_DATA_DIR="$TMP/data" SLUICE_ADMIN_KEY=$ADMIN_KEY \
    "$SLUICE_HOME_DIR/bin/sluice" >"$TMP/sluice.log" 2>&1 &
SLUICE_LAUNCHER_PID=$!
PIDS+=("$SLUICE_LAUNCHER_PID")
wait_for_port "$TMP/sluice.log" 's#^.*Sluice listening on http://[^ ]*:\([0-9][0-9]*\).*#\1#p' "$SLUICE_LAUNCHER_PID" Sluice
SLUICE_PORT=$WAITED_PORT
SLUICE_PID=$(find_java_pid "$SLUICE_LAUNCHER_PID") || die "cannot find the Sluice JVM under pid $SLUICE_LAUNCHER_PID"
if [[ $SLUICE_PID != "$SLUICE_LAUNCHER_PID" ]]; then
    PIDS+=("$SLUICE_PID")
fi
SLUICE=http://$HOST:$SLUICE_PORT
WATCHED[$SLUICE_PID]=Sluice

# Fails the run if a mock or Sluice has exited (crashed or killed): its numbers would be garbage.
check_alive() {
    local pid
    for pid in "${!WATCHED[@]}"; do
        if ! kill -0 "$pid" 2>/dev/null; then
            log "${WATCHED[$pid]} (pid $pid) exited during $1; the last lines of its output:"
            case ${WATCHED[$pid]} in
                Sluice) tail -n 30 "$TMP/sluice.log" >&2 ;;
                *echo*) tail -n 30 "$TMP/plain.log" >&2 ;;
                *) tail -n 30 "$TMP/stream.log" >&2 ;;
            esac
            die "${WATCHED[$pid]} exited during $1: no valid results"
        fi
    done
}
log "Sluice on port $SLUICE_PORT (JVM pid $SLUICE_PID)"

# admin POST PATH BODY: prints the response body, fails unless the status is 201
admin_post() {
    local out status
    out=$(curl -sS --max-time 10 -w '\n%{http_code}' -X POST "$SLUICE$1" \
        -H "Authorization: Bearer $ADMIN_KEY" -H 'Content-Type: application/json' --data-binary "$2")
    status=${out##*$'\n'}
    out=${out%$'\n'*}
    [[ $status == 201 ]] || die "POST $1 answered $status: $out"
    printf '%s' "$out"
}
json_string() { sed -n "s/.*\"$1\"[[:space:]]*:[[:space:]]*\"\([^\"]*\)\".*/\1/p" | head -n 1; }

admin_post /api/providers \
    "{\"provider\":\"bench\",\"authType\":\"apikey\",\"apiKey\":\"sk-bench\",\"baseUrl\":\"http://$HOST:$MOCK_PLAIN_PORT/v1\"}" >/dev/null
admin_post /api/providers \
    "{\"provider\":\"benchstream\",\"authType\":\"apikey\",\"apiKey\":\"sk-bench\",\"baseUrl\":\"http://$HOST:$MOCK_STREAM_PORT/v1\"}" >/dev/null
CLIENT_KEY=$(admin_post /api/keys '{"name":"bench"}' | json_string key)
[[ -n $CLIENT_KEY ]] || die "POST /api/keys returned no \"key\""

body() { # body MODEL STREAM
    printf '{"model":"%s","stream":%s,"messages":[{"role":"user","content":"hi"}]}' "$1" "$2"
}
DIRECT_URL=http://$HOST:$MOCK_PLAIN_PORT/v1/chat/completions
DIRECT_STREAM_URL=http://$HOST:$MOCK_STREAM_PORT/v1/chat/completions
SLUICE_URL=$SLUICE/v1/chat/completions

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
check "sluice" "$SLUICE_URL" "$CLIENT_KEY" "$(body bench/mock-model false)" '"chat.completion"'
check "direct stream" "$DIRECT_STREAM_URL" "" "$(body mock-model true)" '[DONE]'
check "sluice stream" "$SLUICE_URL" "$CLIENT_KEY" "$(body benchstream/mock-model true)" '[DONE]'

# ---------------------------------------------------------------------------------------------
# Idle RSS: after start-up and the requests above, then IDLE_SECONDS without traffic
# ---------------------------------------------------------------------------------------------
sleep "$IDLE_SECONDS"
RSS_IDLE_KIB=$(rss_kib "$SLUICE_PID")
log "Sluice idle RSS $(mib "$RSS_IDLE_KIB") MiB"

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
    [[ -n $measure ]] && wait_quiet
    log "wrk $label: -t$threads -c$conc -d$dur $url"
    cpu_mark
    out=$(BENCH_BODY=$(body "$model" false) BENCH_AUTH=$key \
        wrk -t"$threads" -c"$conc" -d"$dur" --timeout 5s -s "$TMP/bench.lua" "$url" 2>&1)
    cpu_since "$label"
    check_alive "wrk $label"
    printf '### %s (-t%s -c%s -d%s)\n%s\n\n' "$label" "$threads" "$conc" "$dur" "$out" >>"$RAW_LOG"
    line=$(grep '^BENCH_RESULT ' <<<"$out" | tail -n 1) || die "wrk $label printed no result: $out"
    for kv in ${line#BENCH_RESULT }; do
        R[$label.${kv%%=*}]=${kv#*=}
    done
    errors=$((R[$label.err_connect] + R[$label.err_read] + R[$label.err_write] + R[$label.err_status] + R[$label.err_timeout]))
    R[$label.errors]=$errors
    if ((errors > 0)); then
        log "wrk $label: $errors errors (connect ${R[$label.err_connect]}, read ${R[$label.err_read]}, write ${R[$label.err_write]}, non-2xx/3xx ${R[$label.err_status]}, timeout ${R[$label.err_timeout]})"
        INVALID+=("wrk $label: $errors errors")
    fi
    [[ -n $measure ]] && log "  $label: ${R[$label.rps]} req/s, p50 ${R[$label.p50_ms]} ms, p99 ${R[$label.p99_ms]} ms" \
        "(other processes ${R[$label.foreign_pct]} % CPU, steal ${R[$label.steal_pct]} %)"
    return 0
}

run_wrk warmup_direct "$DIRECT_URL" "" mock-model "$HIGH_C" "$WRK_THREADS" "$WARMUP"
run_wrk warmup_sluice "$SLUICE_URL" "$CLIENT_KEY" bench/mock-model "$HIGH_C" "$WRK_THREADS" "$WARMUP"

run_wrk direct_c1 "$DIRECT_URL" "" mock-model 1 1 "$DURATION" measure
run_wrk sluice_c1 "$SLUICE_URL" "$CLIENT_KEY" bench/mock-model 1 1 "$DURATION" measure
run_wrk direct_cN "$DIRECT_URL" "" mock-model "$HIGH_C" "$WRK_THREADS" "$DURATION" measure

# Sluice at high concurrency, with its RSS sampled every 0.5 s
(
    max=0
    while kill -0 "$SLUICE_PID" 2>/dev/null; do
        kib=$(rss_kib "$SLUICE_PID" 2>/dev/null || echo 0)
        if ((kib > max)); then max=$kib; echo "$max" >"$TMP/rss_max"; fi
        sleep 0.5
    done
) &
SAMPLER_PID=$!
PIDS+=("$SAMPLER_PID")
run_wrk sluice_cN "$SLUICE_URL" "$CLIENT_KEY" bench/mock-model "$HIGH_C" "$WRK_THREADS" "$DURATION" measure
kill -TERM "$SAMPLER_PID" 2>/dev/null || true
wait "$SAMPLER_PID" 2>/dev/null || true
RSS_LOAD_KIB=$(cat "$TMP/rss_max" 2>/dev/null || echo 0)
log "Sluice max RSS under load $(mib "$RSS_LOAD_KIB") MiB"

# ---------------------------------------------------------------------------------------------
# Streaming time to first byte: N sequential requests over one keep-alive connection (one curl)
# ---------------------------------------------------------------------------------------------
# ttfb LABEL URL KEY MODEL N [measure]: sets R[LABEL.p50_ms], R[LABEL.p99_ms], R[LABEL.errors]
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
        echo 'write-out = "%{http_code} %{time_starttransfer} %{size_download} %{num_connects} %{time_total} %{exitcode} %{errormsg}\n"'
        for ((i = 0; i < n; i++)); do
            echo "url = \"$url\""
            echo 'output = "/dev/null"'
        done
    } >"$cfg"
    [[ -n $measure ]] && wait_quiet
    cpu_mark
    curl -K "$cfg" >"$TMP/$label.ttfb" 2>"$TMP/$label.curlerr" || true
    cpu_since "$label"
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
    printf '### %s: %s streaming requests, "http_code time_starttransfer size_download num_connects time_total exitcode errormsg"\n%s\n\n' \
        "$label" "$n" "$(cat "$TMP/$label.ttfb")" >>"$RAW_LOG"
    if ((R[$label.errors] > 0)); then
        log "streaming $label: ${R[$label.errors]} of $n requests failed"
        INVALID+=("streaming $label: ${R[$label.errors]} failed requests")
    fi
}

log "streaming TTFB: $STREAM_WARMUP_N warm-up + $STREAM_N measured requests per target"
ttfb warmup_direct_stream "$DIRECT_STREAM_URL" "" mock-model "$STREAM_WARMUP_N"
ttfb warmup_sluice_stream "$SLUICE_URL" "$CLIENT_KEY" benchstream/mock-model "$STREAM_WARMUP_N"
ttfb direct_stream "$DIRECT_STREAM_URL" "" mock-model "$STREAM_N" measure
ttfb sluice_stream "$SLUICE_URL" "$CLIENT_KEY" benchstream/mock-model "$STREAM_N" measure
log "  TTFB direct p50 ${R[direct_stream.p50_ms]} ms p99 ${R[direct_stream.p99_ms]} ms;" \
    "Sluice p50 ${R[sluice_stream.p50_ms]} ms p99 ${R[sluice_stream.p99_ms]} ms"

# ---------------------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------------------
calc() { awk "BEGIN { printf \"$1\", $2 }"; }
verdict() { awk "BEGIN { print (($1) ? \"PASS\" : \"**FAIL**\") }"; }

ADD_P50_C1=$(calc '%+.3f' "${R[sluice_c1.p50_ms]} - ${R[direct_c1.p50_ms]}")
ADD_P99_C1=$(calc '%+.3f' "${R[sluice_c1.p99_ms]} - ${R[direct_c1.p99_ms]}")
ADD_P50_CN=$(calc '%+.3f' "${R[sluice_cN.p50_ms]} - ${R[direct_cN.p50_ms]}")
ADD_P99_CN=$(calc '%+.3f' "${R[sluice_cN.p99_ms]} - ${R[direct_cN.p99_ms]}")
RATIO_C1=$(calc '%.1f' "100 * ${R[sluice_c1.rps]} / ${R[direct_c1.rps]}")
RATIO_CN=$(calc '%.1f' "100 * ${R[sluice_cN.rps]} / ${R[direct_cN.rps]}")
ADD_TTFB_P50=$(calc '%+.3f' "${R[sluice_stream.p50_ms]} - ${R[direct_stream.p50_ms]}")
ADD_TTFB_P99=$(calc '%+.3f' "${R[sluice_stream.p99_ms]} - ${R[direct_stream.p99_ms]}")
RSS_IDLE=$(mib "$RSS_IDLE_KIB")
RSS_LOAD=$(mib "$RSS_LOAD_KIB")

V_P50=$(verdict "$ADD_P50_C1 <= 0.15")
V_P99=$(verdict "$ADD_P99_C1 <= 1")
V_TPUT=$(verdict "$RATIO_CN >= 40")
V_TTFB=$(verdict "$ADD_TTFB_P50 <= 1")
V_RSS=$(verdict "$RSS_IDLE <= 150")

LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
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

e() { echo "${R[$1.errors]}"; }
FOREIGN_MAX=0
for l in direct_c1 sluice_c1 direct_cN sluice_cN direct_stream sluice_stream; do
    FOREIGN_MAX=$(awk -v a="$FOREIGN_MAX" -v b="${R[$l.foreign_pct]}" 'BEGIN { print (b > a ? b : a) }')
done
{
    echo "## Sluice benchmark — $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo
    echo "Machine: $(nproc) CPUs, ${CPU_MODEL:-unknown CPU}; $JAVA_VERSION; $WRK_VERSION; $CURL_VERSION."
    echo "Client (wrk/curl), mock upstreams and Sluice all share these CPUs, on loopback (127.0.0.1)." \
        "Load average (1/5/15 min) before the run: $LOAD_BEFORE; after: $LOAD_AFTER."
    echo "Settings: ${DURATION} per wrk run after a ${WARMUP} warm-up per target at c${HIGH_C};" \
        "wrk -t1 at c1, -t${WRK_THREADS} at c${HIGH_C}; ${STREAM_N} sequential streaming requests" \
        "per target (after ${STREAM_WARMUP_N} warm-up) over one keep-alive connection, mock stream" \
        "of ${STREAM_PIECES} pieces ${STREAM_DELAY_MS} ms apart (TCP connections opened: direct" \
        "${R[direct_stream.connects]}, Sluice ${R[sluice_stream.connects]}; whole stream p50: direct" \
        "${R[direct_stream.total_p50_ms]} ms, Sluice ${R[sluice_stream.total_p50_ms]} ms); Sluice JVM options:${SLUICE_JAVA_OPTS:- (none found)}."
    echo "Validity: $VALIDITY."
    echo
    echo "| Measurement | Direct (mock) | Through Sluice | Sluice − direct / ratio | Target | Result |"
    echo "|---|---:|---:|---:|---|---|"
    echo "| c1 throughput (req/s) | ${R[direct_c1.rps]} | ${R[sluice_c1.rps]} | ${RATIO_C1} % | | |"
    echo "| c1 latency p50 (ms) | ${R[direct_c1.p50_ms]} | ${R[sluice_c1.p50_ms]} | ${ADD_P50_C1} ms | added ≤ 0.15 ms | $V_P50 |"
    echo "| c1 latency p99 (ms) | ${R[direct_c1.p99_ms]} | ${R[sluice_c1.p99_ms]} | ${ADD_P99_C1} ms | added ≤ 1 ms | $V_P99 |"
    echo "| c${HIGH_C} throughput (req/s) | ${R[direct_cN.rps]} | ${R[sluice_cN.rps]} | ${RATIO_CN} % | ≥ 40 % of direct | $V_TPUT |"
    echo "| c${HIGH_C} latency p50 (ms) | ${R[direct_cN.p50_ms]} | ${R[sluice_cN.p50_ms]} | ${ADD_P50_CN} ms | | |"
    echo "| c${HIGH_C} latency p99 (ms) | ${R[direct_cN.p99_ms]} | ${R[sluice_cN.p99_ms]} | ${ADD_P99_CN} ms | | |"
    echo "| streaming TTFB p50 (ms) | ${R[direct_stream.p50_ms]} | ${R[sluice_stream.p50_ms]} | ${ADD_TTFB_P50} ms | added ≤ 1 ms | $V_TTFB |"
    echo "| streaming TTFB p99 (ms) | ${R[direct_stream.p99_ms]} | ${R[sluice_stream.p99_ms]} | ${ADD_TTFB_P99} ms | | |"
    echo "| Sluice RSS idle (MiB) | | ${RSS_IDLE} | | ≤ 150 MiB | $V_RSS |"
    echo "| Sluice RSS max during c${HIGH_C} (MiB) | | ${RSS_LOAD} | | | |"
    echo "| errors: c1 / c${HIGH_C} / streams | $(e direct_c1) / $(e direct_cN) / $(e direct_stream) | $(e sluice_c1) / $(e sluice_cN) / $(e sluice_stream) | | 0 | |"
    echo
    echo "CPU used by other processes on the machine during each measurement (% of all CPUs; hypervisor" \
        "steal in brackets): c1 direct ${R[direct_c1.foreign_pct]} (${R[direct_c1.steal_pct]}), Sluice" \
        "${R[sluice_c1.foreign_pct]} (${R[sluice_c1.steal_pct]}); c${HIGH_C} direct ${R[direct_cN.foreign_pct]}" \
        "(${R[direct_cN.steal_pct]}), Sluice ${R[sluice_cN.foreign_pct]} (${R[sluice_cN.steal_pct]}); streams direct" \
        "${R[direct_stream.foreign_pct]} (${R[direct_stream.steal_pct]}), Sluice ${R[sluice_stream.foreign_pct]}" \
        "(${R[sluice_stream.steal_pct]})$(awk -v m="$FOREIGN_MAX" 'BEGIN { if (m > 5) printf " — **the machine was not quiet (up to %s %%): compare with care**", m }')."
    echo
    echo "Requests measured: direct ${R[direct_c1.requests]} (c1), ${R[direct_cN.requests]} (c${HIGH_C});" \
        "Sluice ${R[sluice_c1.requests]} (c1), ${R[sluice_cN.requests]} (c${HIGH_C})." \
        "Max latency at c${HIGH_C}: direct ${R[direct_cN.max_ms]} ms, Sluice ${R[sluice_cN.max_ms]} ms."
} >"$RESULTS"

for f in sluice plain stream; do
    printf '### output of %s\n%s\n\n' "$f" "$(cat "$TMP/$f.log")" >>"$RAW_LOG"
done

cat "$RESULTS"
log "report written to $RESULTS (raw wrk/curl output in $RAW_LOG)"
if ((${#INVALID[@]} > 0)); then
    log "INVALID RUN: ${INVALID[*]}"
    exit 3
fi
