/**
 * Segment files as every part reads and writes them: header writes, whole reads, the write limit's
 * rules, the recycled tail, the suffix-truncation record and the one read window ({@link
 * io.walden.internal.segment.SegmentWindow}) beside the frame decoder. May import {@code state} only.
 */
package io.walden.internal.segment;
