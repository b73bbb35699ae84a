#!/usr/bin/env bash
# The official OpenAI and Anthropic SDKs (npm, pinned) against the built distribution zip, black box.
#
# Builds nothing: unpacks distribution/target/sluice-*.zip into a temp folder, starts it on a free
# loopback port with a fresh data folder and admin key, starts the scripted upstream
# scripts/sdk-e2e/mock_upstream.py (the agents-e2e mock plus 429s, a refused parameter, a slow
# stream and embeddings) on another free loopback port, creates through the admin API
#
#   mock     a custom OpenAI-compatible connection (translated paths: chat, messages, responses)
#   openai   an openai connection (the Responses passthrough)
#   claude   a claude connection (the Messages passthrough)
#   rlo, rla, flo, fla   one custom connection each for the 429 checks (a 429 cools its connection
#                        down, so no check meets another's cooldown)
#   slow     a custom connection with a concurrency cap (maxConcurrent 4), whose running count
#            (GET /api/rate-limits) the abort checks read
#
# and a client key, then runs scripts/sdk-e2e/sdk-e2e.mjs: openai and @anthropic-ai/sdk used as a
# user would (base URL Sluice, telemetry nothing to turn off: the SDKs send none), each check
# printing `PASS name` or `FAIL name: expected …, got …`. The closing line is `N passed, M failed`;
# exits 1 when a check failed, 2 when the run could not be set up (`FAIL setup: why`). Stops
# everything it started on every exit path; the Node run is bounded by `timeout`.
#
# Environment:
#   SLUICE_SDK_CACHE      npm prefix of the pinned SDKs (default ~/.cache/sluice-sdk); installed with
#                         npm when the pinned versions are not there yet
#   SLUICE_SDK_TIMEOUT    seconds for the whole Node run (default 240); each check has 30 s
#   SLUICE_SDK_KEEP=1     keep the temp folder (logs, mock requests) and print where it is
#   SLUICE_SDK_ONLY       names (or prefixes ending in *) of the checks to run, separated by spaces or
#                         commas (default: all)
set -uo pipefail

# openai 7.x needs Node 22 (engines); 6.49.0 is the newest release that runs on Node 18/20.
OPENAI_VERSION=6.49.0
ANTHROPIC_VERSION=1.17.0

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${SLUICE_SDK_CACHE:-$HOME/.cache/sluice-sdk}
NODE_TIMEOUT=${SLUICE_SDK_TIMEOUT:-240}

PASSED=0
FAILED=0
SLUICE_PID=""
MOCK_PID=""
NODE_PID=""
WORK=""

E2E_NAME=sdk-e2e
E2E_KEEP=${SLUICE_SDK_KEEP:-}
. "$ROOT/scripts/lib/e2e.sh"
# NODE_PID is a `timeout`, which passes the signal on to node.
e2e_pids() { echo $NODE_PID $SLUICE_PID $MOCK_PID; }
e2e_traps


# ---- prerequisites ----------------------------------------------------------------------------
for tool in python3 node npm curl unzip timeout; do
    command -v "$tool" >/dev/null 2>&1 || die "needs '$tool' on the PATH"
done
NODE_MAJOR=$(node -p 'process.versions.node.split(".")[0]')
[ "$NODE_MAJOR" -ge 18 ] 2>/dev/null || die "needs Node 18 or newer (found $(node --version))"
e2e_find_zip

WORK=$(mktemp -d "${TMPDIR:-/tmp}/sluice-sdk-e2e.XXXXXX") || die "cannot create a temp folder"
START=$(date +%s)

# ---- pinned SDKs ------------------------------------------------------------------------------
e2e_npm "$CACHE" 600 "openai@$OPENAI_VERSION" "@anthropic-ai/sdk@$ANTHROPIC_VERSION"

# ---- Sluice and the mock ----------------------------------------------------------------------
e2e_unpack

python3 "$ROOT/scripts/sdk-e2e/mock_upstream.py" 0 "$WORK/mock-requests.jsonl" \
    >"$WORK/mock.out" 2>"$WORK/mock.err" &
MOCK_PID=$!

ADMIN_KEY="sdk-e2e-admin-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
SLUICE_HOST=127.0.0.1 SLUICE_PORT=0 SLUICE_DATA_DIR="$WORK/data" SLUICE_ADMIN_KEY="$ADMIN_KEY" \
    SLUICE_STRICT_PLUGINS=true "$SLUICE_HOME_DIR/bin/sluice" >"$WORK/sluice.log" 2>&1 &
SLUICE_PID=$!

e2e_port MOCK_PORT "$WORK/mock.out" "$MOCK_PID" "the mock"
e2e_port SLUICE_PORT "$WORK/sluice.log" "$SLUICE_PID" "Sluice"
S="http://127.0.0.1:$SLUICE_PORT"
MOCK="http://127.0.0.1:$MOCK_PORT"

admin() {  # admin PATH JSON -> response body on stdout; fails (saying why on stderr) unless 2xx
    local out code
    out=$(curl -sS -m 20 -w '\n%{http_code}' "$S$1" -H "Authorization: Bearer $ADMIN_KEY" \
        -H 'Content-Type: application/json' -d "$2") || return 1
    code=${out##*$'\n'}
    [ "${code:0:1}" = 2 ] || { say "POST $1 answered $code: ${out%$'\n'*}"; return 1; }
    printf '%s\n' "${out%$'\n'*}"
}
connection() {  # connection PROVIDER BASE-URL [EXTRA-JSON-FIELDS] -> the new connection's id
    (set -o pipefail; admin /api/providers '{"provider":"'"$1"'","name":"sdk-'"$1"'","apiKey":"k-'"$1"'","baseUrl":"'"$2"'"'"${3:+,$3}"'}' \
        | json_field id)
}
connection mock "$MOCK/v1" >/dev/null || die "cannot create the OpenAI-compatible connection on the mock"
connection openai "$MOCK/v1" >/dev/null || die "cannot create the openai connection on the mock"
connection claude "$MOCK" >/dev/null || die "cannot create the claude connection on the mock"
for p in rlo rla flo fla; do
    connection "$p" "$MOCK/v1" >/dev/null || die "cannot create the connection $p on the mock"
done
# a concurrency cap, so that its requests hold a permit: GET /api/rate-limits counts them as running
SLOW_ID=$(connection slow "$MOCK/v1" '"maxConcurrent":4') && [ -n "$SLOW_ID" ] || die "cannot create the connection slow on the mock"
CLIENT_KEY=$(set -o pipefail; admin /api/keys '{"name":"sdk-e2e"}' | json_field key) && [ -n "$CLIENT_KEY" ] \
    || die "cannot create a client key"
say "Sluice on $S, mock on $MOCK, setup took $(( $(date +%s) - START ))s"

# ---- the SDK checks ---------------------------------------------------------------------------
T0=$(date +%s)
# In the background and waited for, so that INT/TERM reach the trap at once.
env SDK_NODE_MODULES="$CACHE/node_modules" SLUICE_URL="$S" SLUICE_KEY="$CLIENT_KEY" SLUICE_ADMIN_KEY="$ADMIN_KEY" \
    SLOW_CONNECTION_ID="$SLOW_ID" MOCK_LOG="$WORK/mock-requests.jsonl" MOCK_ERR="$WORK/mock.err" \
    SDK_ONLY="${SLUICE_SDK_ONLY:-}" OPENAI_API_KEY= OPENAI_BASE_URL= ANTHROPIC_API_KEY= ANTHROPIC_BASE_URL= \
    ANTHROPIC_AUTH_TOKEN= OPENAI_LOG=off ANTHROPIC_LOG=off \
    timeout -k 5 "$NODE_TIMEOUT" node "$ROOT/scripts/sdk-e2e/sdk-e2e.mjs" </dev/null >"$WORK/node.out" 2>"$WORK/node.err" &
NODE_PID=$!
wait "$NODE_PID"
RC=$?
NODE_PID=""
grep -E '^(PASS|FAIL) ' "$WORK/node.out"
PASSED=$(grep -c '^PASS ' "$WORK/node.out")
FAILED=$(grep -c '^FAIL ' "$WORK/node.out")
if [ "$RC" = 124 ] || [ "$RC" = 137 ]; then
    echo "FAIL sdk-run: timed out after ${NODE_TIMEOUT}s"; FAILED=$((FAILED + 1))
elif [ "$RC" != 0 ] && [ "$FAILED" -eq 0 ]; then
    echo "FAIL sdk-run: node exited $RC; stderr: $(tail -c 600 "$WORK/node.err" | tr '\n' ' ')"; FAILED=$((FAILED + 1))
fi
[ "$PASSED" -gt 0 ] || [ "$FAILED" -gt 0 ] || { echo "FAIL sdk-run: no check ran"; FAILED=1; }
say "SDK checks took $(( $(date +%s) - T0 ))s, whole run $(( $(date +%s) - START ))s"
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
