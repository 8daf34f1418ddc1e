/**
 * Walden as the log storage of SOFAJRaft: {@link io.walden.jraft.WaldenLogStorage} (a Walden log per Raft
 * group) and the service factory that installs it, {@link io.walden.jraft.WaldenJRaftServiceFactory}; and
 * for many Raft groups in ONE log, {@link io.walden.jraft.WaldenGroupsJRaftServiceFactory}, whose storages
 * are {@link io.walden.jraft.WaldenGroupLogStorage} views of groups of a shared group log.
 */
package io.walden.jraft;
