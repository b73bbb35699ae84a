#!/usr/bin/env bash
# Memory under hostile upstreams (issue 19; not run by CI): the built zip with its default memory
# settings against loopback upstreams answering 300 MB bodies and valid 12 MiB completions, many at
# once; prints statuses, peak RSS and whether an OutOfMemoryError was logged. Build first:
#   . scripts/select-jdk.sh && mvn -B -ntp package -DskipTests
# $1 = rounds of each kind (default 5). Figures go in docs/operator-guide.md §19.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/select-jdk.sh" >/dev/null
ZIP=$(ls "$ROOT"/distribution/target/sluice-*.zip 2>/dev/null | head -1)
[ -n "$ZIP" ] || { echo "no distribution/target/sluice-*.zip: build it first" >&2; exit 2; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
unzip -q "$ZIP" -d "$WORK"
HOME_DIR=$(ls -d "$WORK"/sluice-*)
python3 "$ROOT/scripts/soak/hostile_answers.py" "$HOME_DIR" "${1:-5}"
