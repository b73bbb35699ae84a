# Shared by the end-to-end scripts (agents-e2e.sh, ui-e2e.sh); sourced, not run.
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
