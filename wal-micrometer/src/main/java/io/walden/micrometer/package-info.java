/**
 * Micrometer meters over a Walden log's stats: bind a {@link io.walden.micrometer.WalMetrics} to a
 * {@code MeterRegistry}. Depends on {@code io.walden} (the API) and micrometer-core only.
 */
package io.walden.micrometer;
