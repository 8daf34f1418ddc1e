/**
 * Walden's implementation; not an API (nothing outside {@code wal-core} may depend on it). This
 * package holds the lifecycle of an open log (opening, the engine and its holder, the directory
 * lock); the jobs have packages of their own, each importing only those below it (checked by {@code
 * LayoutTest}):
 *
 * <pre>
 *   append   read   truncation        what the API facade (Wal, WalView) calls
 *        \     |     /
 *        io.walden.internal            lifecycle: LogOpening, LogEngine, EngineHolder
 *               |
 *               io                     the write path: the I/O agent and its stages
 *               |
 *            recovery                  opening's scan, judgement and repair
 *               |
 *            segment                   segment files: headers, write limits, the read window
 *               |
 *             state                    positions, waiters, log buffer, counters, invariants
 * </pre>
 */
package io.walden.internal;
