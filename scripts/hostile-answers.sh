#!/usr/bin/env bash
# Memory under hostile upstreams (issues 19 and 29): the built zip with its default memory settings
# against loopback upstreams answering 300 MB bodies and valid 12 MiB completions, many at once, then
# streams of events each under upstream.maxEventBytes (one of 60 x 3.9 MiB, chat and Responses; four
# at once of 200 x 1 MiB); prints statuses, how each stream ended, peak RSS and whether an
# OutOfMemoryError was logged. Fails (exit 1) on an OOM, a 500, a request without an answer, a 200
# stream cut without its terminator or an error event, or peak RSS over 320 MiB. Bounded: 4 minutes
# at most (exit 124 past it). Build first:
#   . scripts/select-jdk.sh && mvn -B -ntp package -DskipTests
# $1 = rounds of each whole-answer kind (default 5; 2 keeps a CI run near a minute).
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
