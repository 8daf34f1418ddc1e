#!/usr/bin/env bash
# Shows that the property tests can fail: applies each deliberate bug of mutations/MUTANTS to a
# scratch clone of this repository's HEAD, builds it (nothing is installed into ~/.m2) and runs the
# tests that must catch it. Prints "caught" or "SURVIVED" per mutant and exits 1 if any survived.
# Usage: mutations/run.sh [name-filter]      (extra Maven options in MUTATION_MVN_OPTS, e.g. -o)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/walden-mutants.XXXXXX)
filter=${1:-}
survived=0
while read -r patch module tests; do
    [[ -z "$patch" || "$patch" == \#* ]] && continue
    [[ -n "$filter" && "$patch" != *"$filter"* ]] && continue
    # One clone per patch and module: a patch may be listed for suites in two modules.
    clone="$work/${patch%.patch}-$module"
    git clone -q "$root" "$clone"
    if ! git -C "$clone" apply "$root/mutations/$patch"; then
        echo "ERROR    $patch: the patch does not apply to HEAD; regenerate it"
        survived=1
        continue
    fi
    log="$clone.log"
    start=$(date +%s)
    # Modules that need JDK 22+ (wal-uring-ffm) build with the machines' JDK 25.
    jdk=${JAVA_HOME:-}
    if [[ "$module" == wal-uring-ffm ]]; then
        jdk=${WALDEN_JDK25:-/usr/lib/jvm/temurin-25-jdk-amd64}
    fi
    if (cd "$clone" && JAVA_HOME=$jdk mvn -B ${MUTATION_MVN_OPTS:-} verify -pl "$module" -am -Dtest="$tests" \
            -Dsurefire.failIfNoSpecifiedTests=false -Dspotless.check.skip=true -Dcheckstyle.skip=true >"$log" 2>&1); then
        echo "SURVIVED $patch: $tests passed ($(($(date +%s) - start)) s, log $log)"
        survived=1
    elif grep -q "BUILD FAILURE" "$log" && grep -qE "Tests run:.*(Failures: [1-9]|Errors: [1-9])" "$log"; then
        echo "caught   $patch by $tests in $(($(date +%s) - start)) s: $(grep -m1 -oE 'PROPERTY [^(]*failed[^(]*' "$log" || true)"
    else
        echo "ERROR    $patch: the build failed before any test ran (log $log)"
        survived=1
    fi
done <"$root/mutations/MUTANTS"
exit $survived
