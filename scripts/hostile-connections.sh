#!/usr/bin/env bash
# Idle-connection flood (issue 29, point 1; bounded to 3 minutes): the built zip with its default
# memory settings (-Xmx192m) while a client holds $1 connections that never speak (default 3000,
# reopened as the server closes them) and 50 that trickle a header line every 5 s, for $2 seconds
# (default 45); /health/live and a routed request must be answered throughout, and the server's
# file descriptors and heap must return to their baseline once the flood is closed. Then, below the
# cap, 1000 silent connections and 50 trickling heads: heap per connection, closed at the first-byte
# (10 s) and head (30 s) timeouts, descriptors released. Prints a result line; exits non-zero on
# failure (1) or when it cannot run (2); a failing run keeps its directory (server log, heap dump on
# an OutOfMemoryError) and prints where. About 100 s. Build first:
#   . scripts/select-jdk.sh && mvn -B -ntp package -DskipTests
# Needs python3 and unzip (installed with apt-get when missing and running as root).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/select-jdk.sh" >/dev/null
for tool in python3 unzip; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      apt-get update -qq >/dev/null && apt-get install -y -qq "$tool" >/dev/null
    else
      echo "hostile-connections: needs $tool (apt-get install $tool)" >&2
      exit 2
    fi
  fi
done
ZIP=$(ls "$ROOT"/distribution/target/sluice-*.zip 2>/dev/null | head -1)
[ -n "$ZIP" ] || { echo "no distribution/target/sluice-*.zip: build it first" >&2; exit 2; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
unzip -q "$ZIP" -d "$WORK"
HOME_DIR=$(ls -d "$WORK"/sluice-*)
# the client stops the server it started itself; the timeout bounds the whole run
timeout --kill-after=10 180 python3 "$ROOT/scripts/soak/hostile_connections.py" "$HOME_DIR" "${1:-3000}" "${2:-45}"
