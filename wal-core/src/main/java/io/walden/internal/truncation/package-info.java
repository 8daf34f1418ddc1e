/**
 * Truncation: {@code truncateAfter} on a closed or an open log, {@code truncateBefore} and retention
 * by size or age. May import the API, {@code format}, {@code spi}, {@code recovery}, {@code segment},
 * {@code state}, the lifecycle classes of {@code io.walden.internal} and {@code TruncateRequest}
 * (handed to the I/O thread) only.
 */
package io.walden.internal.truncation;
