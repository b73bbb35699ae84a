#!/usr/bin/env bash
# The per-request cost of the Responses passthrough (issue 32) on the built zip, beside the chat relay
# and the translated Responses path, at concurrency 1, against the agents' scripted mock upstream
# (scripts/agents-e2e/mock_upstream.py, Python: slow, so compare Sluice's CPU per request, not req/s):
#
#   bench/passthrough.sh
#
#   chat relay            POST /v1/chat/completions  acme/native-x    (custom OpenAI-compatible connection)
#   responses passthrough POST /v1/responses         openai/native-x  (an `openai` connection: body forwarded)
#   responses translated  POST /v1/responses         acme/native-x    (translated to chat and back)
#
# Needs a built tree (mvn -B -DskipTests package), wrk, curl and python3; loopback only. Prints req/s,
# p50 and Sluice's CPU per request (utime+stime of its JVM over the measured run ÷ requests).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/select-jdk.sh >/dev/null
TMP=$(mktemp -d)
trap 'kill ${SL:-} ${MOCK:-} 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$TMP"' EXIT
unzip -q distribution/target/sluice-0.1.0-SNAPSHOT.zip -d "$TMP"
HOME_DIR=$(echo "$TMP"/sluice-*)
python3 scripts/agents-e2e/mock_upstream.py 0 > "$TMP/mock.log" 2>&1 &
MOCK=$!
for _ in $(seq 1 100); do grep -q MOCK_PORT "$TMP/mock.log" && break; sleep 0.2; done
MOCK_URL=http://127.0.0.1:$(sed -n 's/^MOCK_PORT=//p' "$TMP/mock.log" | head -1)
ADMIN=sk-bench-admin-0123456789abcdef
SLUICE_PORT=0 SLUICE_DATA_DIR="$TMP/data" SLUICE_ADMIN_KEY=$ADMIN "$HOME_DIR/bin/sluice" > "$TMP/sluice.log" 2>&1 &
SL=$!
for _ in $(seq 1 150); do grep -qs 'Sluice listening' "$TMP/sluice.log" && break; sleep 0.2; done
URL=$(grep -o 'Sluice listening on http://[0-9.:]*' "$TMP/sluice.log" | sed 's/Sluice listening on //')
SPID=$(pgrep -P $SL java || echo $SL)
for p in acme openai; do
    curl -sf -X POST "$URL/api/providers" -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' \
        -d "{\"provider\":\"$p\",\"apiKey\":\"sk-upstream-0123456789abcdef\",\"baseUrl\":\"$MOCK_URL/v1\"}" > /dev/null
done
KEY=$(curl -sf -X POST "$URL/api/keys" -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' -d '{"name":"bench"}' \
    | python3 -c 'import sys,json;print(json.load(sys.stdin)["key"])')
TCK=$(getconf CLK_TCK)
cpu() { awk '{print $14+$15}' /proc/$SPID/stat; }
run() { # run NAME PATH BODY
    local name=$1 path=$2 body=$3 c0 c1 out reqs status
    status=$(curl -s -o "$TMP/one" -w '%{http_code}' -X POST "$URL$path" -H "Authorization: Bearer $KEY" \
        -H 'Content-Type: application/json' -d "$body")
    [[ $status == 200 ]] || { echo "$name: HTTP $status: $(head -c 300 "$TMP/one")" >&2; exit 1; }
    printf 'wrk.method = "POST"\nwrk.body = %s\nwrk.headers["Content-Type"] = "application/json"\nwrk.headers["Authorization"] = "Bearer %s"\n' \
        "'$body'" "$KEY" > "$TMP/req.lua"
    wrk -t1 -c1 -d5s -s "$TMP/req.lua" "$URL$path" > /dev/null 2>&1
    c0=$(cpu)
    out=$(wrk -t1 -c1 -d8s --latency -s "$TMP/req.lua" "$URL$path" 2>&1)
    c1=$(cpu)
    reqs=$(echo "$out" | awk '/requests in/{print $1}')
    echo "$name c1: $(echo "$out" | awk '/Requests\/sec/{print $2}') req/s, p50 $(echo "$out" | awk '/ 50%/{print $2}')," \
        "Sluice CPU $(python3 -c "print(round(($c1-$c0)*1e6/$TCK/$reqs,1))") µs/request ($reqs requests)"
}
MSG='[{"role":"user","content":"hi"}]'
for round in 1 2; do
    run "chat relay            " /v1/chat/completions "{\"model\":\"acme/native-x\",\"messages\":$MSG}"
    run "responses passthrough " /v1/responses "{\"model\":\"openai/native-x\",\"input\":\"hi\"}"
    run "responses translated  " /v1/responses "{\"model\":\"acme/native-x\",\"input\":\"hi\"}"
done
