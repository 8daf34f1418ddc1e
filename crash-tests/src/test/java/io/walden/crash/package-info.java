/**
 * Crash tests: simulated power loss ({@code power}), SIGKILL of a child JVM ({@code kill}), injected I/O
 * faults and a real full disk ({@code fault}), and corruption detection ({@code corruption}). What each
 * checks is written down in {@code DURABILITY.md}; {@link io.walden.crash.CrashTally} collects the counts
 * printed as the {@code CRASH-SUMMARY} line.
 */
package io.walden.crash;
