/**
 * Crash-testing a system built on Walden.
 *
 * <ul>
 *   <li>{@link io.walden.testkit.SimulatedStorage}: a storage backend to pass in a log's {@code
 *       WalConfig}, which keeps what was synced apart from what was only written and, at a simulated
 *       power failure ({@link io.walden.testkit.SimulatedStorage#crash}, {@link
 *       io.walden.testkit.CrashPoint}), keeps a random choice of the rest; it also injects errors
 *       ({@link io.walden.testkit.Errno}) and delays.
 *   <li>{@link io.walden.testkit.DiskHistory}: every crash state of one run, for exhaustive small runs;
 *       {@link io.walden.testkit.CrashReport} says what each crash kept.
 *   <li>{@link io.walden.testkit.AckLedger}: what a log promised, and the checks every application
 *       wants after a crash: every {@code SYNCED} acknowledgement survived, the recovered log is a
 *       prefix of what was appended, nothing was invented.
 *   <li>{@link io.walden.testkit.WalCrashTest} (JUnit 5) and {@link io.walden.testkit.CrashTrials}:
 *       run a test body over many seeded crash points, print the seed that replays a failure, and move
 *       a failure's crash point as early as it still fails.
 * </ul>
 *
 * <p>What the simulation models, and what it cannot (a device that lies about its flushes), is
 * written in {@link io.walden.testkit.SimulatedStorage}.
 */
package io.walden.testkit;
