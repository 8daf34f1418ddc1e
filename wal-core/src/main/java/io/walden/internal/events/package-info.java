/**
 * JDK Flight Recorder events of a Walden log, all in the category {@code Walden}: {@code
 * io.walden.Sync}, {@code io.walden.SegmentRoll}, {@code io.walden.SegmentPreparation}, {@code
 * io.walden.BackPressure}, {@code io.walden.Recovery} and {@code io.walden.FailStop}, enabled by
 * default in any recording and read with {@code jfr print --events io.walden.Sync recording.jfr} or JDK
 * Mission Control.
 *
 * <p>Cost: an event object is created only while a recording has the event enabled; else each site
 * costs a check of a static flag. Events are emitted per operation of the I/O thread, per slow-path
 * wait, or once, never per record.
 */
package io.walden.internal.events;
