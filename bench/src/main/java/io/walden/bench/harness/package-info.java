/**
 * The macro benchmark harness behind {@code walden-bench.jar run}: scenarios that append from N
 * writer threads to Walden and to the baselines a user would otherwise pick (fio, FileChannel,
 * AsynchronousFileChannel, RandomAccessFile, RocksDB, Chronicle Queue), each in a fresh child JVM,
 * and the report (Markdown, CSV, charts) that judges the design brief's performance bar from
 * same-run ratios.
 */
package io.walden.bench.harness;
