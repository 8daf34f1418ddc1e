/**
 * Recovery: opens a log directory, judges where the log ends, cuts a torn tail and applies the
 * recovery policy ({@link io.walden.internal.recovery.LogRecovery}); also inspection and the
 * completion of a pending {@code truncateAfter}. May import the API, {@code format}, {@code spi}
 * and, of the internal packages, {@code segment}, {@code state} and {@code events} only.
 */
package io.walden.internal.recovery;
