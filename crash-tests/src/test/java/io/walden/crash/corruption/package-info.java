/**
 * Corruption detection: every sampled single-bit flip in a sealed segment is detected and named
 * ({@link io.walden.crash.corruption.BitFlipDetectionTest}), structural damage to segment files is
 * detected and named while a torn tail is cut ({@link io.walden.crash.corruption.StructuralDamageTest}),
 * and the non-default recovery policies do exactly what {@link io.walden.RecoveryPolicy} documents
 * ({@link io.walden.crash.corruption.RecoveryPolicyTest}). All run against real backends on files in
 * a scratch directory ({@code /dev/shm} where it exists).
 */
package io.walden.crash.corruption;
