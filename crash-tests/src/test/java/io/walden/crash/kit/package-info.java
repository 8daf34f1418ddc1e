/**
 * Walden's own crash suite on the published test kit ({@code wal-testkit}), used as an application
 * would use it: {@link io.walden.testkit.WalCrashTest} trials with concurrent appenders, batches,
 * injected I/O errors and crashes during recovery ({@link io.walden.crash.kit.KitCrashTrialTest}),
 * and every crash state of a small run ({@link io.walden.crash.kit.EveryCrashStateTest}), each
 * checked by {@link io.walden.testkit.AckLedger}. The power-loss suites in {@code io.walden.crash.power}
 * run on the kit's simulated storage as well.
 */
package io.walden.crash.kit;
