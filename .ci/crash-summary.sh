#!/usr/bin/env bash
# Prints one CRASH-SUMMARY line for a Maven log whose crash suites ran in several test JVMs (surefire
# forks): each JVM prints its own running totals, tagged jvm=<pid>; this takes each JVM's last line and
# adds them up, field by field. Prints nothing if the log holds no summary.
set -euo pipefail
grep -o 'CRASH-SUMMARY .*' "$1" | tr -d '\r' | awk '
{
    jvm = "";
    for (i = 2; i <= NF; i++) {
        split($i, kv, "=");
        if (kv[1] == "jvm") jvm = kv[2];
    }
    if (!(jvm in last)) jvms++;
    last[jvm] = $0;
}
END {
    if (jvms == 0) exit;
    for (j in last) {
        n = split(last[j], field, " ");
        for (i = 2; i <= n; i++) {
            split(field[i], kv, "=");
            if (kv[1] == "jvm") continue;
            if (!(kv[1] in sum)) order[++names] = kv[1];
            sum[kv[1]] += kv[2];
        }
    }
    line = "CRASH-SUMMARY jvms=" jvms;
    for (i = 1; i <= names; i++) line = line " " order[i] "=" sum[order[i]];
    print line;
}' || true
