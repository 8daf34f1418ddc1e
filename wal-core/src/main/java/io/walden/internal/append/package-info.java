/**
 * The append path: claims space in the log buffer, publishes frames, waits for the durability level.
 * May import the API, {@code format}, {@code state}, {@code events}, the lifecycle classes of {@code
 * io.walden.internal} and {@code IoAgent} (to drive or wake the I/O) only.
 */
package io.walden.internal.append;
