/**
 * Walden's on-disk format: one descriptor class per structure, each the single source of truth
 * for its offsets, with the human specification in {@code FORMAT.md} at the repository root; and the
 * one place that reads those bytes: {@link io.walden.format.FrameDecoder} (with {@link
 * io.walden.format.FrameChecksum}) for frames, {@link io.walden.format.SegmentHeaderDecoder} for
 * segment headers. Anything may depend on this package; it depends on nothing but the JDK and Agrona.
 */
package io.walden.format;
