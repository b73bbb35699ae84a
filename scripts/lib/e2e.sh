# Shared by the end-to-end scripts (agents-e2e.sh, sdk-e2e.sh, ui-e2e.sh); sourced, not run.
# The caller sets E2E_NAME (the prefix of its log lines), E2E_KEEP (1 keeps $WORK), WORK (its temp
# folder, or empty) and defines e2e_pids (prints the ids of the processes it started, client first).

say() { echo "$E2E_NAME: $*" >&2; }

# A set-up failure: one FAIL line and the summary (PASSED and FAILED, when the caller counts), exit 2
die() {
    say "$*"
    echo "FAIL setup: $*"
    echo "${PASSED:-0} passed, $(( ${FAILED:-0} + 1 )) failed"
    exit 2
}

# stop_pids PID... : TERM each, wait up to 5 s, then KILL; reaps them
stop_pids() {
    local pid
    for pid in "$@"; do
        kill "$pid" 2>/dev/null
    done
    for pid in "$@"; do
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
}

# Stops everything the script started and removes (or keeps) its temp folder, on every exit path.
e2e_cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    # shellcheck disable=SC2046 # the ids are words on purpose
    stop_pids $(e2e_pids)
    if [ -n "${WORK:-}" ]; then
        if [ "${E2E_KEEP:-}" = 1 ]; then say "kept $WORK"; else rm -rf "$WORK"; fi
    fi
    exit "$rc"
}

e2e_traps() {
    trap e2e_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
}

json_field() { python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }

# e2e_find_zip: sets ZIP to the one distribution zip (dies when there is none or more than one) and
# selects the JDK the build scripts select (bin/sluice finds a JDK 21+ itself; this one is preferred)
e2e_find_zip() {
    local zips
    shopt -s nullglob
    zips=("$ROOT"/distribution/target/sluice-*.zip)
    shopt -u nullglob
    [ ${#zips[@]} -ge 1 ] || die "no distribution zip at distribution/target/sluice-*.zip: build it first" \
        "(. scripts/select-jdk.sh && mvn -B -ntp package -DskipTests)"
    [ ${#zips[@]} -eq 1 ] || die "more than one zip in distribution/target: ${zips[*]}"
    ZIP=${zips[0]}
    . "$ROOT/scripts/select-jdk.sh" >/dev/null 2>&1 || true
}

# e2e_npm CACHE TIMEOUT PACKAGE@VERSION... : installs the pinned packages into CACHE unless every one
# is there at its version (a scoped name keeps its leading @: @scope/name@1.2.3)
e2e_npm() {
    local cache=$1 limit=$2 spec name want have missing="" t0
    shift 2
    for spec in "$@"; do
        name=${spec%@*} want=${spec##*@}
        have=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' \
            "$cache/node_modules/$name/package.json" 2>/dev/null)
        [ "$have" = "$want" ] || missing=1
    done
    [ -z "$missing" ] && return 0
    say "installing $* into $cache"
    mkdir -p "$cache" || die "cannot create $cache"
    t0=$(date +%s)
    if ! NPM_CONFIG_UPDATE_NOTIFIER=false timeout "$limit" npm install --no-audit --no-fund --save-exact \
            --prefix "$cache" "$@" >"$WORK/npm.log" 2>&1; then
        tail -20 "$WORK/npm.log" >&2
        die "npm install failed (log above)"
    fi
    say "installed in $(( $(date +%s) - t0 ))s"
}

# e2e_unpack: unpacks $ZIP into $WORK/dist and sets SLUICE_HOME_DIR
e2e_unpack() {
    unzip -q "$ZIP" -d "$WORK/dist" || die "cannot unpack $ZIP"
    SLUICE_HOME_DIR=$(find "$WORK/dist" -mindepth 1 -maxdepth 1 -type d | head -1)
    [ -x "$SLUICE_HOME_DIR/bin/sluice" ] || die "no bin/sluice in $ZIP"
}

# e2e_port VAR FILE PID WHAT : sets VAR to the port FILE announces (a MOCK_PORT=/TEE_PORT= line, or
# Sluice's "listening" line) once it does, within 60 s; dies when PID exits first or nothing comes
e2e_port() {
    local var=$1 file=$2 pid=$3 what=$4 port=""
    for _ in $(seq 1 600); do
        port=$(sed -n -e 's/^[A-Z]*_PORT=\([0-9]*\)$/\1/p' -e 's#.*Sluice listening on http://127\.0\.0\.1:\([0-9]*\).*#\1#p' \
            "$file" 2>/dev/null | head -1)
        if [ -n "$port" ]; then
            printf -v "$var" '%s' "$port"
            return 0
        fi
        kill -0 "$pid" 2>/dev/null || { tail -20 "$file" "${file%.*}.err" >&2 2>/dev/null; die "$what exited while starting"; }
        sleep 0.1
    done
    tail -20 "$file" >&2
    die "$what did not start within 60 s"
}
