/**
 * Crash tests: simulated power loss ({@code power}), SIGKILL of a child JVM ({@code kill}), injected I/O
 * faults and a real full disk ({@code fault}), corruption detection ({@code corruption}), and a
 * read-only view following a writer in a child JVM ({@code follow}). What each checks is in the table
 * of {@code docs/design/testing.md}, the guarantees in {@code DURABILITY.md}; {@link io.walden.crash.CrashTally} collects the counts printed as the
 * {@code CRASH-SUMMARY} line.
 */
package io.walden.crash;
