/**
 * Walden as the log storage of SOFAJRaft: {@link io.walden.jraft.WaldenLogStorage} and the service
 * factory that installs it, {@link io.walden.jraft.WaldenJRaftServiceFactory}.
 */
package io.walden.jraft;
