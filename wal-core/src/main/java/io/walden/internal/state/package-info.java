/**
 * The shared state at the bottom of the implementation: the log's positions and waiters ({@link
 * io.walden.internal.state.LogState}), the log buffer, the counters, aligned memory and the invariant
 * checks. Every other internal package may import it; it imports none of them.
 */
package io.walden.internal.state;
