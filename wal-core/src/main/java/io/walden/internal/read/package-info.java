/**
 * Readers: {@link io.walden.internal.read.LogReader} reads an open log's segment files, or those of a
 * log another process writes through a {@link io.walden.internal.read.DirectoryTracker}. May import
 * the API, {@code format}, {@code spi}, {@code segment}, {@code state}, the lifecycle classes of
 * {@code io.walden.internal} and {@code RecoveredLog} only.
 */
package io.walden.internal.read;
