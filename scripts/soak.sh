#!/usr/bin/env bash
# Soak test (issue 19; not run by CI): 10 minutes (or $1 seconds) of mixed traffic with faults against
# the built zip, sampled every 10 s (requests, errors, p50/p95, RSS, threads, fds). Build first:
#   . scripts/select-jdk.sh && mvn -B -ntp package -DskipTests
# SOAK_CLIENTS sets the concurrent clients (default 8). Figures go in docs/performance.md.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/select-jdk.sh" >/dev/null
ZIP=$(ls "$ROOT"/distribution/target/sluice-*.zip 2>/dev/null | head -1)
[ -n "$ZIP" ] || { echo "no distribution/target/sluice-*.zip: build it first" >&2; exit 2; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
unzip -q "$ZIP" -d "$WORK"
HOME_DIR=$(ls -d "$WORK"/sluice-*)
python3 "$ROOT/scripts/soak/soak.py" "${1:-600}" "$HOME_DIR"
