#!/usr/bin/env bash
# Builds and runs the README's Quickstart exactly as a new user would: the README's complete pom.xml
# (its first xml block), its Gradle build (its first groovy block) and its Quickstart class (the java
# block of the Quickstart section), each copied verbatim into a fresh project, against the artifacts
# `mvn install` puts in the local repository. Fails unless both Quickstart records are printed with
# Maven (the command the README gives), with Gradle, and on the module path (the Quickstart as a named
# module that requires io.walden.core and the backend's module, as the README says).
set -euo pipefail
cd "$(dirname "$0")/.."

# What the README's dependency block pulls in (wal-nio, which brings wal-core and the parent): the
# build above compiled and tested them; this only puts their jars where Maven and Gradle look.
mvn -B -ntp -q install -pl wal-nio -am -DskipTests -Dspotless.check.skip=true -Dcheckstyle.skip=true \
    -Dmaven.javadoc.skip=true -Dmaven.source.skip=true

work=$(mktemp -d /tmp/walden-consumer.XXXXXX)
trap 'rm -rf "$work"' EXIT
block() { # $1 = the fence's language, $2 = a heading the block must follow ("" for anywhere)
    awk -v lang="$1" -v heading="$2" '
        heading == "" || index($0, heading) == 1 { section = 1 }
        section && $0 == "```" lang { inside = 1; next }
        inside && /^```/ { exit }
        inside' README.md
}
pom=$(block xml "## Getting it")
gradle_build=$(block groovy "## Getting it")
quickstart=$(block java "## Quickstart")
maven_run='mvn -q compile exec:java -Dexec.mainClass=example.Quickstart'
if [ -z "$pom" ] || [ -z "$gradle_build" ] || [ -z "$quickstart" ]; then
    echo "consumer check: the README lacks its pom.xml, build.gradle or Quickstart block" >&2
    exit 1
fi
if ! grep -qF "$maven_run" README.md; then
    echo "consumer check: the README no longer says to run the Quickstart with: $maven_run" >&2
    exit 1
fi

expect_both() { # $1 = what ran, $2 = its output
    if ! grep -Eq '^[0-9]+: put k1 v1$' <<<"$2" || ! grep -Eq '^[0-9]+: put k2 v2$' <<<"$2"; then
        echo "consumer check: the README's Quickstart did not print both records ($1):" >&2
        echo "$2" >&2
        exit 1
    fi
    echo "consumer check: $1 printed both records"
}

maven="$work/maven"
mkdir -p "$maven/src/main/java/example"
printf '%s\n' "$pom" >"$maven/pom.xml"
printf '%s\n' "$quickstart" >"$maven/src/main/java/example/Quickstart.java"
output=$(cd "$maven" && $maven_run -B -ntp 2>&1) || true
expect_both "Maven $(mvn -v | sed -n '1s/.*Maven \([0-9.]*\).*/\1/p')" "$output"

if ! command -v gradle >/dev/null 2>&1; then
    apt-get update -q
    apt-get install -y -q gradle >/dev/null
fi
gradle_dir="$work/gradle"
mkdir -p "$gradle_dir/src/main/java/example"
printf '%s\n' "$gradle_build" >"$gradle_dir/build.gradle"
printf '%s\n' "$quickstart" >"$gradle_dir/src/main/java/example/Quickstart.java"
output=$(cd "$gradle_dir" && gradle -q --no-daemon run 2>&1) || true
expect_both "Gradle $(gradle --version 2>/dev/null | sed -n 's/^Gradle //p')" "$output"

# The same Quickstart as a named module on the module path: the module declarations must let it
# compile, find the backend through ServiceLoader and run.
(cd "$maven" && mvn -B -ntp -q dependency:build-classpath -Dmdep.outputFile="$work/classpath.txt")
modular="$work/modular"
mkdir -p "$modular/src/example/example"
cp "$maven/src/main/java/example/Quickstart.java" "$modular/src/example/example/"
cat > "$modular/src/example/module-info.java" <<JAVA
module example {
    requires io.walden.core;
    requires io.walden.nio;
}
JAVA
modulepath=$(cat "$work/classpath.txt")
javac -d "$modular/out" --module-path "$modulepath" --module-source-path "$modular/src" -m example
output=$(cd "$modular" && java --module-path "$modulepath:$modular/out" -m example/example.Quickstart 2>&1) || true
expect_both "the module path" "$output"

# The walden launcher of the checkout, on the log the Maven run left: `bin/walden verify DIR` as the
# README says (exit 0: a healthy log).
if ! bin/walden verify "$maven/quickstart-wal"; then
    echo "consumer check: bin/walden verify failed on the Quickstart's log" >&2
    exit 1
fi
echo "consumer check: bin/walden verify ran on the Quickstart's log"
