/**
 * The io_uring storage backend that owns its ring through the Foreign Function and Memory API (JDK 22
 * and later): {@link io.walden.uring.ffm.FfmUringStorageBackend}.
 */
package io.walden.uring.ffm;
