/**
 * Walden's implementation: the log buffer, the I/O agent (group commit, segment roll and
 * preparation, truncation), recovery and readers. Not an API: nothing outside {@code wal-core} may
 * depend on it, and it changes without notice.
 */
package io.walden.internal;
