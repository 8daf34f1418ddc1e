/**
 * I/O faults: a fault-injecting backend decorator ({@link io.walden.crash.fault.FaultInjectingBackend})
 * over the real backends injects EIO, ENOSPC, partial and short writes, and failed syncs, allocations and
 * directory syncs ({@link io.walden.crash.fault.FaultCase}); and a real file system filled to ENOSPC
 * ({@link io.walden.crash.fault.FullDiskTest}). Each must be fail-stop with a clear error, acknowledge
 * nothing afterwards, and leave a log that recovers to a valid prefix holding every acknowledgement.
 */
package io.walden.crash.fault;
