#!/usr/bin/env bash
# Sluice JMH micro-benchmarks (SPEC §19 NF-3: resilience decisions are cheap). See the section
# "Resilience decisions (NF-3, JMH)" of docs/performance.md.
#
#   bench/jmh.sh                               # everything, ≈ 2 minutes on 2 cores
#   bench/jmh.sh SelectionBenchmark            # a JMH include regex (any JMH argument is passed on)
#   bench/jmh.sh Selection -prof stack         # add a profiler
#
# Steps: installs the runtime into the local Maven repository (mvn install of gateway-runtime and
# what it needs, tests skipped), compiles the standalone project bench/jmh (not a module of the
# root build), and runs JMH on the class path. Maven runs offline first and online only when
# something (JMH on a fresh machine) is missing from the local repository.
#
# Environment knobs (defaults in brackets):
#   BENCH_JMH_OPTS [-f 1 -wi 3 -w 1s -i 5 -r 1s -prof gc]   JMH run settings
#   BENCH_JMH_JVM [-XX:+UseSerialGC -Xmx256m -Xmn32m]          JVM options of the forked benchmark JVM
#                                                             (the options bin/sluice ships with)
#   BENCH_JMH_SKIP_INSTALL [0]   1 skips the runtime install (the installed one is benchmarked)
#   BENCH_QUIET_WAIT [0]         before the run, wait up to this many seconds for the machine to be
#                                quiet (other processes < 10 % CPU over 3 s); the CPU other processes
#                                used during the run is reported either way
#   BENCH_RESULTS_DIR [bench/results]   where jmh.log (full output) and jmh.json go
#
# Output: JMH's log on stdout and in BENCH_RESULTS_DIR/jmh.log, then the results table again
# (score ± error per benchmark, and gc.alloc.rate.norm = bytes allocated per operation).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
. scripts/select-jdk.sh

OPTS=${BENCH_JMH_OPTS:--f 1 -wi 3 -w 1s -i 5 -r 1s -prof gc}
JVM=${BENCH_JMH_JVM:--XX:+UseSerialGC -Xmx256m -Xmn32m}
RESULTS=${BENCH_RESULTS_DIR:-$ROOT/bench/results}
mkdir -p "$RESULTS"

# offline first; online only when the local repository lacks something
mvn_build() {
  mvn -B -q -o "$@" || { echo "offline Maven build failed; retrying online" >&2; mvn -B -q -ntp "$@"; }
}

if [ "${BENCH_JMH_SKIP_INSTALL:-0}" != 1 ]; then
  echo "== installing sluice-runtime (and sluice-api) into the local Maven repository"
  mvn_build -pl gateway-runtime -am install -DskipTests
fi
echo "== building bench/jmh"
mvn_build -f bench/jmh/pom.xml compile

# CPU accounting: busy ticks of the whole machine (/proc/stat) minus the ticks of this shell's
# reaped children (`times`: the JMH JVMs), as a share of all CPUs. Must run in this shell.
CLK_TCK=$(getconf CLK_TCK)
TICKS=$(mktemp)
trap 'rm -f "$TICKS" "$TICKS.times"' EXIT
cpu_ticks() { # writes "busy total ours" to $TICKS (no subshell: `times` must see this shell's children)
  local ours
  times >"$TICKS.times"
  ours=$(awk -v hz="$CLK_TCK" 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, "m"); s += a[1] * 60 + a[2] } }
      END { printf "%d", s * hz }' "$TICKS.times")
  awk -v ours="$ours" '$1 == "cpu" { print $2 + $3 + $4, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9, ours }' /proc/stat >"$TICKS"
}
foreign_pct() { # $1..$3 = an earlier cpu_ticks line, $4..$6 = a later one
  awk -v b=$(($4 - $1)) -v t=$(($5 - $2)) -v o=$(($6 - $3)) \
    'BEGIN { f = b - o; if (f < 0) f = 0; if (t <= 0) t = 1; printf "%.1f", 100 * f / t }'
}

QUIET_WAIT=${BENCH_QUIET_WAIT:-0}
deadline=$((SECONDS + QUIET_WAIT))
while :; do
  cpu_ticks; read -r b0 t0 o0 <"$TICKS"
  sleep 3
  cpu_ticks; read -r b1 t1 o1 <"$TICKS"
  idle_check=$(foreign_pct "$b0" "$t0" "$o0" "$b1" "$t1" "$o1")
  if awk -v f="$idle_check" 'BEGIN { exit !(f < 10) }' || ((SECONDS >= deadline)); then
    break
  fi
  echo "other processes use $idle_check % of the CPUs: waiting for quiet (up to ${QUIET_WAIT}s)"
  sleep 7
done

BENCH="$ROOT/bench/jmh/target"
CP="$BENCH/classes:$(cat "$BENCH/classpath.txt")"
echo "== JDK: $("$JAVA_HOME/bin/java" -version 2>&1 | head -1); CPUs: $(nproc);" \
  "other processes used $idle_check % of the CPUs in the last 3 s"
cpu_ticks; read -r b0 t0 o0 <"$TICKS"
# shellcheck disable=SC2086  # OPTS and JVM are word lists on purpose
"$JAVA_HOME/bin/java" -cp "$CP" org.openjdk.jmh.Main $OPTS -jvmArgs "$JVM" \
  -rf json -rff "$RESULTS/jmh.json" "$@" 2>&1 | tee "$RESULTS/jmh.log"
status=${PIPESTATUS[0]}
cpu_ticks; read -r b1 t1 o1 <"$TICKS"

echo
echo "== results (ns/op; gc.alloc.rate.norm = B/op allocated per operation)"
sed -n '/^Benchmark /,$p' "$RESULTS/jmh.log" | grep -E '^Benchmark |ns/op|B/op' || true
echo "== other processes used $(foreign_pct "$b0" "$t0" "$o0" "$b1" "$t1" "$o1") % of the $(nproc) CPUs during the run" \
  "(the benchmark itself uses one thread; above ~10 % the scores are disturbed)"
exit "$status"
