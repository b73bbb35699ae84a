#!/usr/bin/env bash
# Real coding agents against the built distribution zip (issue 14, item 5).
#
# Builds nothing: unpacks distribution/target/sluice-*.zip into a temp folder, starts it on a free
# loopback port with a fresh data folder and admin key, starts the scripted upstream
# scripts/agents-e2e/mock_upstream.py on another free loopback port, configures through the admin
# API an OpenAI-compatible connection `mock` and a `claude` connection (both on the mock) and a
# client key, then runs pinned Claude Code, Codex CLI and opencode releases against Sluice, each under
# `timeout`, with HOME / CODEX_HOME in temp folders and telemetry off:
#
#   claude-openai-plain    claude -p, ANTHROPIC_MODEL=mock/model-plain (translated to chat completions)
#   claude-openai-bash     claude -p, the mock calls Bash `ls`, Claude Code runs it, the mock echoes it
#   claude-passthrough     claude -p, ANTHROPIC_MODEL=claude/claude-sonnet-4-5 (passed through)
#   claude-alias           the same, after PATCH /api/settings {"modelAliases":{"claude-*":…}}: onto the
#                          OpenAI-compatible upstream
#   claude-default-model   claude -p with no ANTHROPIC_MODEL: Claude Code's own claude-* ids route
#   claude-thinking-bare   claude -p, ANTHROPIC_MODEL=claude-sonnet-4-5 (bare, as the README teaches), thinking on
#                          (MAX_THINKING_TOKENS): the mock answers a signed thinking block and a Bash `ls` call;
#                          the second request must carry that thinking block, text and signature unchanged
#                          (the mock checks it against what it issued and says MOCK-THINKING-KEPT)
#   codex-plain            codex exec on mock/model-plain (Responses API, translated)
#   codex-exec-command     codex exec, the mock calls exec_command `ls`, Codex runs it, the mock echoes it
#   codex-native           codex exec on openai/native-plain: the openai provider's Responses passthrough
#                          (the mock answers /v1/responses itself and echoes Codex's `include`)
#   codex-native-exec      the exec_command round trip on the passthrough path
#   codex-passthrough-body codex exec on openai/native-record, Codex pointed at a recording relay
#                          (scripts/agents-e2e/tee_proxy.py) in front of Sluice: every /v1/responses body
#                          the mock received equals, as JSON, the one Codex sent, but for `model`
#                          (openai/native-record -> native-record) (issue 32)
#   opencode-plain         opencode run, an @ai-sdk/openai-compatible provider on Sluice's /v1
#   opencode-bash          opencode run, the mock calls its bash tool `ls`, the mock echoes the result
#   sessions-recognised    (Sluice runs with session affinity on) one session pin per passed client run:
#                          each client's own session id was recognised (GET /api/sessions)
#
# A check passes when the client exits 0 and its own output carries the mock's marker (for the tool
# round trips: the marker and the name of a file only `ls` can have seen). Prints `PASS name` or
# `FAIL name: why` per check, then `N passed, M failed`; exits 1 when anything failed, 2 when the
# run could not be set up (then the lines are `FAIL setup: why` and `0 passed, 1 failed`). Stops
# everything it started on every exit path.
#
# Environment:
#   SLUICE_AGENTS_CACHE        npm prefix of the pinned clients (default ~/.cache/sluice-agents);
#                              installed with npm when the pinned versions are not there yet
#   SLUICE_AGENTS_TIMEOUT      seconds per client run (default 120)
#   SLUICE_AGENTS_BUDGET       seconds for all client runs together (default 420); checks that
#                              would start after it is spent FAIL as not run
#   SLUICE_AGENTS_KEEP=1       keep the temp folder (logs, mock requests) and print where it is
#   SLUICE_AGENTS_ONLY         names of the checks to run, separated by spaces or commas (default: all);
#                              the others are neither run nor counted
set -uo pipefail

CLAUDE_CODE_VERSION=2.1.197
CODEX_VERSION=0.171.0
OPENCODE_VERSION=1.18.33

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${SLUICE_AGENTS_CACHE:-$HOME/.cache/sluice-agents}
CLIENT_TIMEOUT=${SLUICE_AGENTS_TIMEOUT:-120}
BUDGET=${SLUICE_AGENTS_BUDGET:-420}
ONLY=${SLUICE_AGENTS_ONLY:-}

PASSED=0
FAILED=0
SLUICE_PID=""
MOCK_PID=""
TEE_PID=""
CLIENT_PID=""
WORK=""

E2E_NAME=agents-e2e
E2E_KEEP=${SLUICE_AGENTS_KEEP:-}
. "$ROOT/scripts/lib/e2e.sh"
# CLIENT_PID is a `timeout`, which passes the signal on to the client's whole process group.
e2e_pids() { echo $CLIENT_PID $TEE_PID $SLUICE_PID $MOCK_PID; }
e2e_traps

selected() { [ -z "$ONLY" ] || [[ " ${ONLY//,/ } " == *" $1 "* ]]; }
pass() { echo "PASS $1"; PASSED=$((PASSED + 1)); }
fail() { echo "FAIL $1: $2"; FAILED=$((FAILED + 1)); }


# ---- prerequisites ----------------------------------------------------------------------------
for tool in python3 node npm curl unzip timeout; do
    command -v "$tool" >/dev/null 2>&1 || die "needs '$tool' on the PATH"
done
e2e_find_zip

WORK=$(mktemp -d "${TMPDIR:-/tmp}/sluice-agents-e2e.XXXXXX") || die "cannot create a temp folder"
START=$(date +%s)

# ---- pinned clients ---------------------------------------------------------------------------
e2e_npm "$CACHE" 600 "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" "@openai/codex@$CODEX_VERSION" \
    "opencode-ai@$OPENCODE_VERSION"
CLAUDE="$CACHE/node_modules/.bin/claude"
CODEX="$CACHE/node_modules/.bin/codex"
OPENCODE="$CACHE/node_modules/.bin/opencode"
for bin in "$CLAUDE" "$CODEX" "$OPENCODE"; do
    [ -x "$bin" ] || die "$bin is missing: remove $CACHE and run again"
done

# ---- Sluice and the mock ----------------------------------------------------------------------
e2e_unpack

python3 "$ROOT/scripts/agents-e2e/mock_upstream.py" 0 "$WORK/mock-requests.jsonl" \
    >"$WORK/mock.out" 2>"$WORK/mock.err" &
MOCK_PID=$!

ADMIN_KEY="agents-e2e-admin-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
SLUICE_HOST=127.0.0.1 SLUICE_PORT=0 SLUICE_DATA_DIR="$WORK/data" SLUICE_ADMIN_KEY="$ADMIN_KEY" \
    SLUICE_STRICT_PLUGINS=true SLUICE_SESSION_AFFINITY_TTL_MS=3600000 "$SLUICE_HOME_DIR/bin/sluice" >"$WORK/sluice.log" 2>&1 &
SLUICE_PID=$!

e2e_port MOCK_PORT "$WORK/mock.out" "$MOCK_PID" "the mock"
e2e_port SLUICE_PORT "$WORK/sluice.log" "$SLUICE_PID" "Sluice"
S="http://127.0.0.1:$SLUICE_PORT"
MOCK="http://127.0.0.1:$MOCK_PORT"

# the recording relay in front of Sluice: what Codex sent, for codex-passthrough-body
python3 "$ROOT/scripts/agents-e2e/tee_proxy.py" 0 "$S" "$WORK/tee-requests.jsonl" >"$WORK/tee.out" 2>"$WORK/tee.err" &
TEE_PID=$!
TEE_PORT=""
e2e_port TEE_PORT "$WORK/tee.out" "$TEE_PID" "the recording relay"
TEE="http://127.0.0.1:$TEE_PORT"

admin() {  # admin PATH JSON -> response body on stdout; fails (saying why on stderr) unless 2xx
    local out code
    out=$(curl -sS -m 20 -w '\n%{http_code}' "$S$1" -H "Authorization: Bearer $ADMIN_KEY" \
        -H 'Content-Type: application/json' -d "$2") || return 1
    code=${out##*$'\n'}
    [ "${code:0:1}" = 2 ] || { say "POST $1 answered $code: ${out%$'\n'*}"; return 1; }
    printf '%s\n' "${out%$'\n'*}"
}
admin /api/providers '{"provider":"mock","name":"mock-openai","apiKey":"k-mock-openai","baseUrl":"'"$MOCK"'/v1"}' \
    >/dev/null || die "cannot create the OpenAI-compatible connection on the mock"
admin /api/providers '{"provider":"openai","name":"mock-responses","apiKey":"k-mock-responses","baseUrl":"'"$MOCK"'/v1"}' \
    >/dev/null || die "cannot create the openai connection on the mock"
admin /api/providers '{"provider":"claude","name":"mock-claude","apiKey":"k-mock-claude","baseUrl":"'"$MOCK"'"}' \
    >/dev/null || die "cannot create the claude connection on the mock"
CLIENT_KEY=$(set -o pipefail; admin /api/keys '{"name":"agents-e2e"}' | json_field key) && [ -n "$CLIENT_KEY" ] \
    || die "cannot create a client key"
say "Sluice on $S, mock on $MOCK, setup took $(( $(date +%s) - START ))s"

# ---- client runs ------------------------------------------------------------------------------
PROJECT="$WORK/project"  # the agents' working folder; `ls` there shows the probe file
mkdir -p "$PROJECT" && echo "probe" >"$PROJECT/agents-e2e-probe.txt"
CLIENTS_START=$(date +%s)

# run NAME COMMAND... : runs the client in $PROJECT under timeout; sets RC, OUT
run() {
    local name=$1; shift
    local left=$(( BUDGET - ($(date +%s) - CLIENTS_START) ))
    OUT="$WORK/$name.out"; RC=""
    if ! selected "$name"; then RC=filtered; return; fi
    if [ "$left" -le 5 ]; then RC=skipped; return; fi
    local t=$(( left < CLIENT_TIMEOUT ? left : CLIENT_TIMEOUT ))
    local t0=$(date +%s)
    # In the background and waited for, so that INT/TERM reach the trap at once.
    (cd "$PROJECT" && exec timeout -k 5 "$t" "$@" </dev/null >"$OUT" 2>"$WORK/$name.err") &
    CLIENT_PID=$!
    wait "$CLIENT_PID"
    RC=$?
    CLIENT_PID=""
    ELAPSED=$(( $(date +%s) - t0 ))
}

# check NAME MARKER... : judges the last run(); every MARKER must be in its stdout
check() {
    local name=$1; shift
    if [ "$RC" = filtered ]; then return; fi
    if [ "$RC" = skipped ]; then fail "$name" "not run: the ${BUDGET}s budget for client runs is spent"; return; fi
    if [ "$RC" = 124 ] || [ "$RC" = 137 ]; then fail "$name" "timed out after ${ELAPSED}s"; return; fi
    local tail_err
    tail_err=$(tail -c 300 "$WORK/$name.err" 2>/dev/null | tr '\n' ' ')
    if [ "$RC" != 0 ]; then fail "$name" "exit $RC after ${ELAPSED}s; stdout: $(head -c 200 "$OUT" | tr '\n' ' '); stderr: $tail_err"; return; fi
    local m
    for m in "$@"; do
        if ! grep -qF -- "$m" "$OUT"; then
            fail "$name" "exit 0 but no '$m' in the output: $(head -c 300 "$OUT" | tr '\n' ' ')"; return
        fi
    done
    pass "$name (${ELAPSED}s)"
}

claude_cmd() {  # claude_cmd HOME-NAME [VAR=value...] : CMD = Claude Code with its environment
    local home="$WORK/home-$1"; shift
    mkdir -p "$home"
    CMD=(env -u ANTHROPIC_MODEL -u ANTHROPIC_SMALL_FAST_MODEL -u ANTHROPIC_DEFAULT_HAIKU_MODEL
        -u ANTHROPIC_DEFAULT_SONNET_MODEL -u ANTHROPIC_DEFAULT_OPUS_MODEL -u ANTHROPIC_AUTH_TOKEN
        -u CLAUDE_CONFIG_DIR -u XDG_CONFIG_HOME
        HOME="$home" ANTHROPIC_BASE_URL="$S" ANTHROPIC_API_KEY="$CLIENT_KEY"
        DISABLE_TELEMETRY=1 CLAUDE_CODE_ENABLE_TELEMETRY=0 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
        DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1 DISABLE_BUG_COMMAND=1 DO_NOT_TRACK=1 "$@" "$CLAUDE")
}
models() {  # models MODEL [SMALL-MODEL] : ANTHROPIC_MODEL and the small/fast models
    echo ANTHROPIC_MODEL="$1" ANTHROPIC_SMALL_FAST_MODEL="${2:-$1}" ANTHROPIC_DEFAULT_HAIKU_MODEL="${2:-$1}"
}

claude_cmd claude1 $(models mock/model-plain)
run claude-openai-plain "${CMD[@]}" -p "say hi to agents-e2e"
check claude-openai-plain "MOCK-OPENAI-OK[model-plain]" "say hi to agents-e2e"

claude_cmd claude2 $(models mock/model-bash mock/model-plain)
run claude-openai-bash "${CMD[@]}" -p "list the files here" --allowedTools Bash
check claude-openai-bash "MOCK-TOOL-RESULT-SEEN" "agents-e2e-probe.txt"

claude_cmd claude3 $(models claude/claude-sonnet-4-5)
run claude-passthrough "${CMD[@]}" -p "say hi"
check claude-passthrough "MOCK-ANTHROPIC-OK[claude-sonnet-4-5]"

claude_cmd claude4   # no ANTHROPIC_MODEL: Claude Code's own default model ids
run claude-default-model "${CMD[@]}" -p "say hi"
check claude-default-model "MOCK-ANTHROPIC-OK[claude-"

# issue 32: a bare Claude id (as the README teaches) keeps Claude Code's signed thinking blocks in its tool loop
claude_cmd claude6 $(models claude-sonnet-4-5 claude-haiku-4-5) MAX_THINKING_TOKENS=4096
run claude-thinking-bare "${CMD[@]}" -p "list the files here (agents-e2e-thinking)" --allowedTools Bash
check claude-thinking-bare "MOCK-THINKING-KEPT" "agents-e2e-probe.txt"

# Claude Code's own ids onto a non-Claude upstream through an operator's alias (docs/api.md, model aliases)
curl -sS -m 20 -o /dev/null -X PATCH "$S/api/settings" -H "Authorization: Bearer $ADMIN_KEY" -H 'Content-Type: application/json' \
    -d '{"modelAliases":{"claude-*":"mock/model-plain"}}' || say "PATCH /api/settings failed"
claude_cmd claude5   # no ANTHROPIC_MODEL again: claude-* now means the OpenAI-compatible upstream
run claude-alias "${CMD[@]}" -p "say hi to agents-e2e"
check claude-alias "MOCK-OPENAI-OK[model-plain]" "say hi to agents-e2e"

codex_cmd() {  # codex_cmd HOME-NAME MODEL [BASE] : CMD = Codex CLI with a fresh CODEX_HOME whose provider is Sluice (at BASE)
    local home="$WORK/home-$1" model=$2 base=${3:-$S}
    mkdir -p "$home/.codex"
    cat >"$home/.codex/config.toml" <<EOF
model = "$model"
model_provider = "sluice"
approval_policy = "never"
sandbox_mode = "read-only"
check_for_update_on_startup = false

[model_providers.sluice]
name = "Sluice"
base_url = "$base/v1"
env_key = "SLUICE_KEY"
wire_api = "responses"

[analytics]
enabled = false

[feedback]
enabled = false

[otel]
exporter = "none"
log_user_prompt = false
EOF
    CMD=(env -u OPENAI_API_KEY -u OPENAI_BASE_URL HOME="$home" CODEX_HOME="$home/.codex"
        SLUICE_KEY="$CLIENT_KEY" DO_NOT_TRACK=1 "$CODEX" exec --skip-git-repo-check -s read-only)
}

codex_cmd codex1 mock/model-plain
run codex-plain "${CMD[@]}" "say hi to agents-e2e"
check codex-plain "MOCK-OPENAI-OK[model-plain]" "say hi to agents-e2e"

codex_cmd codex2 mock/model-shell
run codex-exec-command "${CMD[@]}" "list the files here"
check codex-exec-command "MOCK-TOOL-RESULT-SEEN" "agents-e2e-probe.txt"

codex_cmd codex3 openai/native-plain
run codex-native "${CMD[@]}" "say hi to agents-e2e"
check codex-native "MOCK-RESPONSES-OK[native-plain]" "say hi to agents-e2e" "include=reasoning.encrypted_content"

codex_cmd codex4 openai/native-shell
run codex-native-exec "${CMD[@]}" "list the files here"
check codex-native-exec "MOCK-RESPONSES-TOOL-RESULT-SEEN" "agents-e2e-probe.txt"

# issue 32: the passthrough forwards Codex's body as Codex sent it (the relay's record), whatever its items' types
codex_cmd codex5 openai/native-record "$TEE"
run codex-passthrough-body "${CMD[@]}" "list the files here"
if [ "$RC" = filtered ] || [ "$RC" = skipped ]; then
    # filtered: nothing to judge; skipped (budget spent): check reports it as a failure, not a pass
    check codex-passthrough-body "MOCK-RESPONSES-TOOL-RESULT-SEEN"
else
    SAME=$(python3 - "$WORK/tee-requests.jsonl" "$WORK/mock-requests.jsonl" <<'PY'
import json, sys
def lines(p):
    try:
        return [json.loads(l) for l in open(p) if l.strip()]
    except OSError:
        return []
sent = [e["body"] for e in lines(sys.argv[1]) if e["path"] == "/v1/responses"]
got = [e["body"] for e in lines(sys.argv[2]) if e["path"].split("?")[0] == "/v1/responses" and e.get("model") == "native-record"]
if not sent or len(sent) != len(got):
    print("%d bodies sent through the relay, %d received by the mock" % (len(sent), len(got)))
    sys.exit()
for n, (a, b) in enumerate(zip(sent, got)):
    if a.get("model") != "openai/native-record" or b.get("model") != "native-record":
        print("request %d: model %r sent, %r received" % (n, a.get("model"), b.get("model")))
        sys.exit()
    a, b = dict(a), dict(b)
    a.pop("model"); b.pop("model")
    if a != b:
        keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
        print("request %d differs in %s" % (n, ", ".join(keys)))
        sys.exit()
types = sorted({i.get("type", "message") for a in sent for i in (a.get("input") if isinstance(a.get("input"), list) else [])
                if isinstance(i, dict)})
print("ok %d bodies (input item types: %s; top-level fields: %d)" % (len(sent), ",".join(types), len(sent[0])))
PY
)
    if [ "${SAME%% *}" = ok ]; then
        check codex-passthrough-body "MOCK-RESPONSES-TOOL-RESULT-SEEN" "agents-e2e-probe.txt"
        say "codex-passthrough-body: ${SAME#ok }"
    else
        fail codex-passthrough-body "the body reaching the upstream is not the one Codex sent: $SAME"
    fi
fi

opencode_cmd() {  # opencode_cmd NAME MODEL : CMD = opencode with a fresh HOME and a config whose provider is Sluice
    local home="$WORK/home-$1" model=$2
    mkdir -p "$home"
    # Not named opencode.json: opencode also reads project configs of that name up the folder tree.
    cat >"$WORK/oc-$1.json" <<EOF
{
  "\$schema": "https://opencode.ai/config.json",
  "autoupdate": false,
  "share": "disabled",
  "provider": {
    "sluice": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "Sluice",
      "options": {"baseURL": "$S/v1", "apiKey": "$CLIENT_KEY"},
      "models": {"$model": {"name": "$model"}}
    }
  },
  "model": "sluice/$model",
  "small_model": "sluice/$model"
}
EOF
    # The npm registry points at a closed loopback port: opencode would otherwise fetch its plugin
    # package from the internet at start (it carries on without it).
    CMD=(env -u OPENAI_API_KEY -u ANTHROPIC_API_KEY HOME="$home" XDG_CONFIG_HOME="$home/.config"
        XDG_DATA_HOME="$home/.local/share" XDG_CACHE_HOME="$home/.cache" XDG_STATE_HOME="$home/.local/state"
        OPENCODE_CONFIG="$WORK/oc-$1.json" OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_MODELS_FETCH=1
        OPENCODE_DISABLE_SHARE=1 OPENCODE_DISABLE_DEFAULT_PLUGINS=1 OPENCODE_DISABLE_LSP_DOWNLOAD=1
        OPENCODE_DISABLE_CLAUDE_CODE=1 OPENCODE_DISABLE_EXTERNAL_SKILLS=1 DO_NOT_TRACK=1
        npm_config_registry=http://127.0.0.1:9/ "$OPENCODE" run)
}

opencode_cmd opencode1 mock/model-plain
run opencode-plain "${CMD[@]}" "say hi to agents-e2e"
check opencode-plain "MOCK-OPENAI-OK[model-plain]" "say hi to agents-e2e"

opencode_cmd opencode2 mock/model-bash
run opencode-bash "${CMD[@]}" "list the files here"
check opencode-bash "MOCK-TOOL-RESULT-SEEN" "agents-e2e-probe.txt"

# issue 15: every client run that passed was one session Sluice recognised (Claude Code's metadata.user_id,
# Codex's prompt_cache_key, opencode's X-Session-Id) and pinned to the connection that served it
RUNS_PASSED=$PASSED
if selected sessions-recognised; then
PINS=$(curl -sS -m 20 "$S/api/sessions" -H "Authorization: Bearer $ADMIN_KEY" \
    | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["pins"]))' 2>/dev/null || echo "?")
if [ "$PINS" = "$RUNS_PASSED" ]; then
    pass "sessions-recognised ($PINS pins for $RUNS_PASSED client runs)"
else
    fail sessions-recognised "$PINS session pins for $RUNS_PASSED passed client runs (GET /api/sessions)"
fi
fi

say "client runs took $(( $(date +%s) - CLIENTS_START ))s, whole run $(( $(date +%s) - START ))s"
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
