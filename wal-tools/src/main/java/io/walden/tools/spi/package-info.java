/**
 * What the {@code walden} tool lets an application plug in: {@link io.walden.tools.spi.PayloadDecoder},
 * which renders its record payloads in {@code dump} and {@code tail}. The only package wal-tools
 * exports.
 */
package io.walden.tools.spi;
