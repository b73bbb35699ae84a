# Sourced by the scripts in this folder and by .ci/run: exports JAVA_HOME pointing at a JDK 21+.
# JAVA_HOME wins when it is new enough; otherwise the newest JDK 21+ found among the system's
# installed JVMs is used. Fails with a clear message when there is none.

sluice_java_major() {
  "$1" -XshowSettings:properties -version 2>&1 \
    | awk -F'= ' '/java.specification.version/ {print $2}' | cut -d. -f1
}

sluice_select_jdk() {
  local best="" best_major=0 candidate major
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/javac" ]; then
    major=$(sluice_java_major "$JAVA_HOME/bin/java")
    if [ "${major:-0}" -ge 21 ]; then
      export PATH="$JAVA_HOME/bin:$PATH"
      return 0
    fi
  fi
  for candidate in /usr/lib/jvm/* /opt/java/* /usr/java/* /Library/Java/JavaVirtualMachines/*/Contents/Home; do
    [ -x "$candidate/bin/javac" ] || continue
    major=$(sluice_java_major "$candidate/bin/java")
    if [ "${major:-0}" -ge 21 ] && [ "$major" -gt "$best_major" ]; then
      best="$candidate"
      best_major="$major"
    fi
  done
  if [ -z "$best" ] && command -v javac >/dev/null 2>&1; then
    candidate=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
    major=$(sluice_java_major "$candidate/bin/java")
    [ "${major:-0}" -ge 21 ] && best="$candidate"
  fi
  if [ -z "$best" ]; then
    echo "Sluice needs a JDK 21 or newer (Helidon SE 4). JAVA_HOME=${JAVA_HOME:-unset} is older or missing," \
         "and none was found under /usr/lib/jvm. Install one and set JAVA_HOME." >&2
    return 1
  fi
  export JAVA_HOME="$best"
  export PATH="$JAVA_HOME/bin:$PATH"
}

sluice_select_jdk
