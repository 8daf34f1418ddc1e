#!/usr/bin/env bash
# Builds and runs a consumer project made from the README exactly as a new user would: the README's
# first dependency block in a fresh pom, its Quickstart inside a main method (with the log directory
# moved to a temporary one and `apply` printing each record), against the artifacts `mvn install`
# put in the local repository. Fails unless both Quickstart records are printed, on the class path and
# again on the module path (the Quickstart as a named module that requires io.walden.core and the
# backend's module, as the README says).
set -euo pipefail
cd "$(dirname "$0")/.."

mvn -B -ntp -q install -DskipTests -Dspotless.check.skip=true -Dmaven.javadoc.skip=true -Dmaven.source.skip=true

work=$(mktemp -d /tmp/walden-consumer.XXXXXX)
trap 'rm -rf "$work"' EXIT
dependencies=$(awk '/^```xml/ { n++; if (n == 1) { inside = 1; next } } inside && /^```/ { exit } inside' README.md)
quickstart=$(awk '/^## Quickstart/ { section = 1 } section && /^```java/ { inside = 1; next } inside && /^```/ { exit } inside' README.md)
if [ -z "$dependencies" ] || [ -z "$quickstart" ]; then
    echo "consumer check: the README has no dependency block or no Quickstart code block" >&2
    exit 1
fi
quickstart=${quickstart//\/var\/lib\/myapp\/wal/$work/wal}

mkdir -p "$work/src/main/java/example"
cat > "$work/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId>
  <artifactId>walden-consumer</artifactId>
  <version>1</version>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencies>
$dependencies
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-compiler-plugin</artifactId>
        <version>3.14.0</version>
      </plugin>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-dependency-plugin</artifactId>
        <version>3.8.1</version>
      </plugin>
    </plugins>
  </build>
</project>
POM
cat > "$work/src/main/java/example/Quickstart.java" <<JAVA
package example;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.WalReader;
import java.nio.file.Path;
import org.agrona.DirectBuffer;

public final class Quickstart {
    public static void main(final String[] args) throws Exception {
$quickstart
    }

    static void apply(final DirectBuffer buffer, final int offset, final int length) {
        final byte[] bytes = new byte[length];
        buffer.getBytes(offset, bytes);
        System.out.println("record: " + new String(bytes, UTF_8));
    }
}
JAVA

mvn -B -ntp -q -f "$work/pom.xml" compile dependency:build-classpath -Dmdep.outputFile="$work/classpath.txt"
output=$(java -cp "$work/target/classes:$(cat "$work/classpath.txt")" example.Quickstart 2>&1)
echo "$output" | grep '^record: ' || true
if ! grep -q '^record: put k1 v1$' <<<"$output" || ! grep -q '^record: put k2 v2$' <<<"$output"; then
    echo "consumer check: the README's Quickstart did not print both records:" >&2
    echo "$output" >&2
    exit 1
fi

# The same Quickstart as a named module on the module path: the module declarations must let it
# compile, find the backend through ServiceLoader and run.
modular="$work/modular"
mkdir -p "$modular/src/example/example"
sed "s|$work/wal|$work/wal-modular|g" "$work/src/main/java/example/Quickstart.java" >"$modular/src/example/example/Quickstart.java"
cat > "$modular/src/example/module-info.java" <<JAVA
module example {
    requires io.walden.core;
    requires io.walden.nio;
}
JAVA
modulepath=$(cat "$work/classpath.txt")
javac -d "$modular/out" --module-path "$modulepath" --module-source-path "$modular/src" -m example
output=$(java --module-path "$modulepath:$modular/out" -m example/example.Quickstart 2>&1) || true
if ! grep -q '^record: put k1 v1$' <<<"$output" || ! grep -q '^record: put k2 v2$' <<<"$output"; then
    echo "consumer check: the Quickstart as a named module on the module path did not print both records:" >&2
    echo "$output" >&2
    exit 1
fi
echo "consumer check: a project made from the README's dependency block and Quickstart printed both records, on the class path and on the module path"
