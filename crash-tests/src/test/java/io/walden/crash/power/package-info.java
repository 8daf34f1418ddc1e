/**
 * Simulated power loss, on the published test kit ({@code wal-testkit}): {@link
 * io.walden.testkit.SimulatedStorage} is a storage backend whose files are real files (the page-cache
 * view the core reads) and which records every operation as a {@link io.walden.testkit.DiskEvent};
 * {@link io.walden.testkit.DiskHistory} replays a prefix of those events to know what a completed sync or
 * directory sync made durable, and builds a post-crash directory that keeps a random choice of what was
 * not. {@link io.walden.crash.power.PowerLossPropertyTest} drives random workloads (drawn and shrunk by
 * {@link io.walden.testing.property.PropertyRunner}) and checks every crash state after reopening.
 */
package io.walden.crash.power;
