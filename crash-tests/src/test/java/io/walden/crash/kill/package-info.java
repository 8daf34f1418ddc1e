/**
 * Process crash on real files: a child JVM ({@link io.walden.crash.kill.KillChild}) appends with mixed
 * durability and reports each acknowledgement over a pipe; the parent kills it with SIGKILL at random
 * moments and around segment rolls, preparations, truncations and recovery, reopens the log and checks
 * that every WRITTEN and SYNCED acknowledgement survived and the log is a prefix of what was appended
 * ({@link io.walden.crash.kill.KillLedger}). A second child ({@link io.walden.crash.kill.GroupKillChild})
 * does the same to a group log that it purges and relocates ({@link io.walden.crash.kill.GroupLogKillTest}).
 */
package io.walden.crash.kill;
