#!/usr/bin/env bash
# Memory under hostile upstreams (issues 19 and 29): the built zip with its default memory settings
# against loopback upstreams answering 300 MB bodies and valid 12 MiB completions (plain, of two-byte
# text, and of four million empty objects, which must be refused before they are parsed), many at once, then
# streams of events each under upstream.maxEventBytes (one of 60 x 3.9 MiB, chat and Responses; four
# at once of 200 x 1 MiB); prints statuses, how each stream ended, peak RSS and whether an
# OutOfMemoryError was logged. Fails (exit 1) on an OOM, a 500, a request without an answer, a 200
# stream cut without its terminator or an error event, or peak RSS over 320 MiB; a failing run keeps
# its directory (server log, and the heap dump -XX:+HeapDumpOnOutOfMemoryError wrote) and prints
# where. Bounded: 4 minutes at most (exit 124 past it). Uses the first
# distribution/target/sluice-*.zip; build it first:
#   . scripts/select-jdk.sh && mvn -B -ntp package -DskipTests
# $1 = rounds of each whole-answer kind (default 5; CI runs 3, about 2.5 minutes on 2 shared vCPUs).
# Figures go in docs/operator-guide.md §19.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/select-jdk.sh" >/dev/null
ZIP=$(ls "$ROOT"/distribution/target/sluice-*.zip 2>/dev/null | head -1)
[ -n "$ZIP" ] || { echo "no distribution/target/sluice-*.zip: build it first" >&2; exit 2; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
unzip -q "$ZIP" -d "$WORK"
HOME_DIR=$(ls -d "$WORK"/sluice-*)
timeout --kill-after=15 240 python3 "$ROOT/scripts/soak/hostile_answers.py" "$HOME_DIR" "${1:-5}"
