/**
 * Walden's on-disk format: one descriptor class per structure, each the single source of truth
 * for its offsets, with the human specification in {@code FORMAT.md} at the repository root.
 * Anything may depend on this package; it depends on nothing.
 */
package io.walden.format;
