/**
 * Walden's benchmarks and harnesses, packaged as {@code walden-bench.jar}: the JMH benchmarks, the
 * demo, the back-pressure check, the recovery scan timer and the throttled storage backend they use.
 * Depends on the public API, the storage SPI and the backends; nothing depends on this package.
 */
package io.walden.bench;
