/**
 * Process crash on real files: a child JVM ({@link io.walden.crash.kill.KillChild}) appends with mixed
 * durability and reports each acknowledgement over a pipe; the parent kills it with SIGKILL at random
 * moments and around segment rolls, preparations, truncations and recovery, reopens the log and checks
 * that every WRITTEN and SYNCED acknowledgement survived and the log is a prefix of what was appended
 * ({@link io.walden.crash.kill.KillLedger}).
 */
package io.walden.crash.kill;
