#!/usr/bin/env bash
# The dashboard (/ui/) in a real headless browser against the built distribution zip (issue 18).
#
# Builds nothing: unpacks distribution/target/sluice-*.zip into a temp folder, starts it on a free
# loopback port with a fresh data folder and admin key, starts the scripted failing upstream
# scripts/ui-e2e/mock_upstream.py on another free loopback port, and through the admin API:
#   - lowers the apikey breaker thresholds (PATCH /api/resilience: degrade at 1, open at 2, stay open
#     10 min so a slow machine still sees OPEN), adds two
#     connections of provider `flaky` on the mock and sends `flaky/fail-503` requests until the
#     breaker of flaky (one host: the mock's) is OPEN — one request fails on both connections, and
#     failures of one connection within 5 s count once (docs/resilience.md §2);
#   - adds a connection `limited` and sends one `limited/fail-429` request: a 429 with
#     Retry-After: 600 cools that connection for 10 minutes;
#   - turns model lockout on and sends `retired/fail-404-model`: the model is locked out.
# Then scripts/ui-e2e/dashboard.cjs drives Debian's chromium with puppeteer-core: GET /ui redirects,
# a wrong key is refused, logs in, sees breaker-flaky OPEN, the cooling connection and the lockout,
# saves a screenshot; scripts/ui-e2e/console.cjs then walks issue 33's console (every page by its
# nav-* link, back button, reload; creates, edits, tests and deletes a connection on the mock, one
# named <img src=x onerror=alert(1)> rendered as text; a key whose shown secret answers a chat
# request, then revoked; a combo created, edited, explained, deleted; a failing request seen in the
# connection's state and in the log with its reason; usage of the key equal to its requests; an
# out-of-range setting refused at its field; a Claude account added through the mock's login, which
# the config file below points at; no page wider than 360 px; at most one request per 2 s, none
# while hidden) and saves a screenshot of each page at 1440 and 360 px; back on Health it clicks
# breaker-reset-flaky and sees CLOSED, clears the cooldown with its cooldown-clear-<id> button and
# sees it gone, logs out, and fails on any page JavaScript error or console error (but the 404 of
# /metrics on a server built without it, the wrong key's 401 and the settings check's 400).
#
# Prints `PASS name` / `FAIL name: why` per check, the screenshot's path, then `N passed, M failed`;
# exits 1 when a check failed, 2 when the run could not be set up. Stops everything it started on
# every exit path.
#
# Installs what is missing: Debian's `chromium` with apt-get (needs root, as in .ci/run), and the
# pinned puppeteer-core from npm into a cache folder.
#
# Environment:
#   SLUICE_UI_E2E_CACHE     npm prefix of puppeteer-core (default ~/.cache/sluice-ui-e2e)
#   SLUICE_UI_E2E_OUT       where the screenshot goes (default target/ui-e2e)
#   SLUICE_UI_E2E_TIMEOUT   seconds for the browser part (default 360)
#   SLUICE_UI_E2E_KEEP=1    keep the temp folder (logs) and print where it is
#   UI_E2E_CHART_SCRAPES    fake /metrics scrapes (5 s apart) before dashboard-chart.png (default 4;
#                           docs/images/dashboard.png is its dashboard-chart.png with 16)
set -uo pipefail

PUPPETEER_CORE_VERSION=24.43.1   # the newest line that still runs on Debian 12's Node 18

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${SLUICE_UI_E2E_CACHE:-$HOME/.cache/sluice-ui-e2e}
OUT=${SLUICE_UI_E2E_OUT:-$ROOT/target/ui-e2e}
BROWSER_TIMEOUT=${SLUICE_UI_E2E_TIMEOUT:-360}

SLUICE_PID=""
MOCK_PID=""
BROWSER_PID=""
WORK=""

E2E_NAME=ui-e2e
E2E_KEEP=${SLUICE_UI_E2E_KEEP:-}
. "$ROOT/scripts/lib/e2e.sh"
# BROWSER_PID is a `timeout`, which passes the signal on to node and its Chromium.
e2e_pids() { echo $BROWSER_PID $SLUICE_PID $MOCK_PID; }
e2e_traps

START=$(date +%s)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sluice-ui-e2e.XXXXXX") || die "cannot create a temp folder"

# ---- prerequisites ----------------------------------------------------------------------------
for tool in python3 curl unzip timeout; do
    command -v "$tool" >/dev/null 2>&1 || die "needs '$tool' on the PATH"
done
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    say "installing nodejs and npm with apt-get"
    { timeout 300 apt-get update -qq && DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq nodejs npm; } \
        >"$WORK/apt-node.log" 2>&1 || { tail -20 "$WORK/apt-node.log" >&2; die "cannot install nodejs/npm (apt-get needs root)"; }
fi
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
    say "installing Debian's chromium with apt-get"
    t0=$(date +%s)
    { timeout 300 apt-get update -qq \
        && DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq --no-install-recommends chromium; } \
        >"$WORK/apt-chromium.log" 2>&1 || { tail -20 "$WORK/apt-chromium.log" >&2; die "cannot install chromium (apt-get needs root)"; }
    CHROMIUM=$(command -v chromium) || die "chromium installed but not on the PATH"
    say "chromium installed in $(( $(date +%s) - t0 ))s"
fi

e2e_find_zip

# puppeteer-core downloads no browser; the Debian chromium above is the one it drives
e2e_npm "$CACHE" 300 "puppeteer-core@$PUPPETEER_CORE_VERSION"

# ---- Sluice and the mock ----------------------------------------------------------------------
e2e_unpack

python3 "$ROOT/scripts/ui-e2e/mock_upstream.py" 0 >"$WORK/mock.out" 2>"$WORK/mock.err" &
MOCK_PID=$!
MOCK_PORT=""
e2e_port MOCK_PORT "$WORK/mock.out" "$MOCK_PID" "the mock"
MOCK="http://127.0.0.1:$MOCK_PORT"

# the Claude plugin's login talks to the mock (issue 33's "Add account" without a real account)
cat >"$WORK/sluice.yaml" <<YAML
plugins:
  settings:
    claude:
      oauthAuthorizeUrl: $MOCK/oauth/authorize
      oauthTokenUrl: $MOCK/oauth/token
      upstreamBaseUrl: $MOCK/v1
YAML

ADMIN_KEY="ui-e2e-admin-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
SLUICE_HOST=127.0.0.1 SLUICE_PORT=0 SLUICE_DATA_DIR="$WORK/data" SLUICE_ADMIN_KEY="$ADMIN_KEY" SLUICE_CONFIG="$WORK/sluice.yaml" \
    SLUICE_STRICT_PLUGINS=true "$SLUICE_HOME_DIR/bin/sluice" >"$WORK/sluice.log" 2>&1 &
SLUICE_PID=$!

SLUICE_PORT=""
e2e_port SLUICE_PORT "$WORK/sluice.log" "$SLUICE_PID" "Sluice"
S="http://127.0.0.1:$SLUICE_PORT"

call() {  # call METHOD PATH [JSON] -> body on stdout; fails (saying why) unless 2xx
    local out code
    out=$(curl -sS -m 20 -w '\n%{http_code}' -X "$1" "$S$2" -H "Authorization: Bearer $ADMIN_KEY" \
        -H 'Content-Type: application/json' ${3:+-d "$3"}) || return 1
    code=${out##*$'\n'}
    [ "${code:0:1}" = 2 ] || { say "$1 $2 answered $code: ${out%$'\n'*}"; return 1; }
    printf '%s\n' "${out%$'\n'*}"
}
chat() {  # chat MODEL -> the status code (failures are the point)
    curl -sS -m 30 -o /dev/null -w '%{http_code}' "$S/v1/chat/completions" -H "Authorization: Bearer $ADMIN_KEY" \
        -H 'Content-Type: application/json' -d '{"model":"'"$1"'","messages":[{"role":"user","content":"hi"}]}'
}
connection() {  # connection PROVIDER NAME -> its id
    call POST /api/providers '{"provider":"'"$1"'","name":"'"$2"'","apiKey":"sk-ui-e2e-'"$2"'-0123456789","baseUrl":"'"$MOCK"'/v1"}' \
        | json_field id
}

call PATCH /api/resilience '{"circuitBreaker":{"apikey":{"degradationThreshold":1,"failureThreshold":2,"resetTimeoutMs":600000}}}' >/dev/null \
    || die "cannot lower the apikey breaker thresholds"
connection flaky flaky-a >/dev/null && connection flaky flaky-b >/dev/null || die "cannot create the flaky connections"
LIMITED_ID=$(connection limited limited-key) && [ -n "$LIMITED_ID" ] || die "cannot create the limited connection"
RETIRED_ID=$(connection retired retired-key) && [ -n "$RETIRED_ID" ] || die "cannot create the retired connection"
connection healthy healthy-key >/dev/null || die "cannot create the healthy connection"

breaker_state() {  # breaker_state PROVIDER -> the worst state of its breakers
    call GET /api/monitoring/health | python3 -c '
import json, sys
order = {"OPEN": 0, "HALF_OPEN": 1, "DEGRADED": 2, "CLOSED": 3}
states = [b["state"] for b in json.load(sys.stdin)["providerBreakers"] if b["provider"] == sys.argv[1]]
print(min(states, key=lambda s: order.get(s, 9)) if states else "NONE")' "$1"
}
state=""
for i in $(seq 1 15); do
    chat flaky/fail-503 >/dev/null
    state=$(breaker_state flaky)
    [ "$state" = OPEN ] && break
    sleep 1
done
[ "$state" = OPEN ] || die "the breaker of flaky is $state after $i failing requests, not OPEN"
say "breaker of flaky OPEN after $i request(s)"

code=$(chat limited/fail-429)
[ "$code" = 429 ] || die "limited/fail-429 answered $code, not 429"
call GET /api/resilience/cooldowns | python3 -c '
import json, sys
rows = [c for c in json.load(sys.stdin)["data"] if c["connectionId"] == sys.argv[1] and c["remainingMs"] > 60000]
sys.exit(0 if rows else 1)' "$LIMITED_ID" || die "the limited connection is not cooling"

call PATCH /api/resilience '{"modelLockout":{"enabled":true}}' >/dev/null || die "cannot turn model lockout on"
chat retired/fail-404-model >/dev/null
call GET /api/resilience/model-cooldowns | grep -q '"model":"fail-404-model"' || die "fail-404-model is not locked out"
for _ in 1 2 3; do chat healthy/gpt-ok >/dev/null; done   # some traffic that succeeds, for the chart
call POST /api/combos '{"name":"coder","strategy":"priority","targets":[{"model":"flaky/fail-503"},{"model":"healthy/gpt-ok"}]}' \
    >/dev/null || die "cannot create a combo"
say "Sluice on $S, mock on $MOCK, set-up took $(( $(date +%s) - START ))s"

# ---- the browser ------------------------------------------------------------------------------
mkdir -p "$OUT" || die "cannot create $OUT"
SCREENSHOT="$OUT/dashboard.png"
rm -f "$SCREENSHOT"
t0=$(date +%s)
SLUICE_URL="$S" SLUICE_ADMIN_KEY="$ADMIN_KEY" UI_E2E_PROVIDER=flaky UI_E2E_CONNECTION="$LIMITED_ID" \
    UI_E2E_LOCKOUT="retired-fail-404-model" UI_E2E_SCREENSHOT="$SCREENSHOT" CHROMIUM="$CHROMIUM" UI_E2E_MOCK="$MOCK" \
    PUPPETEER_CORE="$CACHE/node_modules/puppeteer-core" HOME="$WORK" \
    timeout -k 5 "$BROWSER_TIMEOUT" node "$ROOT/scripts/ui-e2e/dashboard.cjs" >"$WORK/browser.out" 2>"$WORK/browser.err" &
BROWSER_PID=$!
wait "$BROWSER_PID"
rc=$?
BROWSER_PID=""
cat "$WORK/browser.out"
[ "$rc" = 124 ] && echo "FAIL browser: timed out after ${BROWSER_TIMEOUT}s"
[ -s "$WORK/browser.err" ] && [ "$rc" != 0 ] && tail -20 "$WORK/browser.err" >&2
PASSED=$(grep -c '^PASS ' "$WORK/browser.out")
FAILED=$(grep -c '^FAIL ' "$WORK/browser.out")
[ "$rc" != 0 ] && [ "$FAILED" = 0 ] && { echo "FAIL browser: exit $rc"; FAILED=1; }
[ -f "$SCREENSHOT" ] && echo "screenshot: $SCREENSHOT"
say "browser took $(( $(date +%s) - t0 ))s, whole run $(( $(date +%s) - START ))s"
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
