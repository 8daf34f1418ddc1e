/**
 * JDK Flight Recorder events of a Walden log, all in the category {@code Walden}: {@code
 * io.walden.Sync}, {@code io.walden.SegmentRoll}, {@code io.walden.SegmentPreparation}, {@code
 * io.walden.BackPressure}, {@code io.walden.Recovery} and {@code io.walden.FailStop}. They are
 * enabled by default in any recording ({@code -XX:StartFlightRecording}, {@code jcmd PID
 * JFR.start}) and read with {@code jfr print --events io.walden.Sync recording.jfr} or JDK Mission
 * Control.
 *
 * <p>Cost: an event object is created only while a recording has the event enabled ({@code
 * beginIfEnabled()} returns null otherwise); else each site costs a check of a static flag. Every
 * event is emitted per batch or per operation of the
 * I/O thread (a sync, a roll), per wait on a slow path (back-pressure), or once (recovery,
 * fail-stop), never per record.
 */
package io.walden.internal.events;
