#!/usr/bin/env bash
# The per-request cost of GET /v1/models (issue 32) on the built zip, one configuration per run:
#
#   bench/model-listing.sh on            # 200 ids discovered from the mock's GET /models
#   bench/model-listing.sh off           # discovery off, nothing declared: an empty listing
#   bench/model-listing.sh psd           # discovery off, the same 200 ids in providerSpecificData.models
#
# Needs a built tree (mvn -B -DskipTests package), wrk, curl and python3; loopback only. Prints
# requests/s, p50 and Sluice's CPU per request (utime+stime of its JVM over the measured run) for
# GET /v1/models and, for comparison, POST /v1/chat/completions, all at concurrency 1.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
. scripts/select-jdk.sh >/dev/null
MODE=${1:-on}
TMP=$(mktemp -d)
trap 'kill ${SL:-} ${MOCK:-} 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$TMP"' EXIT
unzip -q distribution/target/sluice-0.1.0-SNAPSHOT.zip -d "$TMP"
HOME_DIR=$(echo "$TMP"/sluice-*)
java -XX:+UseSerialGC -Xmx256m -cp gateway-testkit/target/sluice-testkit-0.1.0-SNAPSHOT.jar dev.sluice.testkit.MockUpstreamMain \
    --port 0 --models 200 > "$TMP/mock.log" 2>&1 &
MOCK=$!
for _ in $(seq 1 100); do grep -q listening "$TMP/mock.log" && break; sleep 0.2; done
MOCK_URL=$(grep -o 'http://[0-9.:]*' "$TMP/mock.log" | head -1)
INTERVAL=0; PSD=""
case $MODE in
    on) INTERVAL=3600000 ;;
    off) ;;
    psd) PSD=$(python3 -c 'import json;print(",\"providerSpecificData\":"+json.dumps({"models":["model-%d"%i for i in range(200)]}))') ;;
    *) echo "usage: $0 on|off|psd" >&2; exit 2 ;;
esac
ADMIN=sk-bench-admin-0123456789abcdef
SLUICE_PORT=0 SLUICE_DATA_DIR="$TMP/data" SLUICE_ADMIN_KEY=$ADMIN SLUICE_ACCESS_LOG=off \
    SLUICE_UPSTREAM_MODEL_DISCOVERY_INTERVAL_MS=$INTERVAL "$HOME_DIR/bin/sluice" > "$TMP/sluice.log" 2>&1 &
SL=$!
for _ in $(seq 1 150); do grep -q 'Sluice listening' "$TMP/sluice.log" && break; sleep 0.2; done
URL=$(grep -o 'Sluice listening on http://[0-9.:]*' "$TMP/sluice.log" | sed 's/Sluice listening on //')
SPID=$(pgrep -P $SL java || echo $SL)
curl -sf -X POST "$URL/api/providers" -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' \
    -d "{\"provider\":\"acme\",\"apiKey\":\"sk-upstream-0123456789abcdef\",\"baseUrl\":\"$MOCK_URL/v1\"$PSD}" > /dev/null
KEY=$(curl -sf -X POST "$URL/api/keys" -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' -d '{"name":"bench"}' \
    | python3 -c 'import sys,json;print(json.load(sys.stdin)["key"])')
sleep 2
echo "$MODE: models listed = $(curl -sf "$URL/v1/models" -H "Authorization: Bearer $KEY" | python3 -c 'import sys,json;print(len(json.load(sys.stdin)["data"]))')"
TCK=$(getconf CLK_TCK)
cpu() { awk '{print $14+$15}' /proc/$SPID/stat; }
run() {
    local name=$1; shift
    wrk -t1 -c1 -d3s "$@" > /dev/null 2>&1
    wrk -t1 -c1 -d3s "$@" > /dev/null 2>&1
    local c0; c0=$(cpu)
    local out; out=$(wrk -t1 -c1 -d8s --latency "$@" 2>&1)
    local c1; c1=$(cpu)
    local reqs; reqs=$(echo "$out" | awk '/requests in/{print $1}')
    echo "$MODE $name c1: $(echo "$out" | awk '/Requests\/sec/{print $2}') req/s, p50 $(echo "$out" | awk '/ 50%/{print $2}')," \
        "Sluice CPU $(python3 -c "print(round(($c1-$c0)*1e6/$TCK/$reqs,1))") µs/request ($reqs requests)"
}
run "GET /v1/models" -H "Authorization: Bearer $KEY" "$URL/v1/models"
cat > "$TMP/chat.lua" <<LUA
wrk.method = "POST"
wrk.body = '{"model":"acme/model-1","messages":[{"role":"user","content":"hi"}]}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer $KEY"
LUA
run "POST /v1/chat/completions" -s "$TMP/chat.lua" "$URL/v1/chat/completions"
