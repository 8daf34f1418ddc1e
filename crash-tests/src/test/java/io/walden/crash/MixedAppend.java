package io.walden.crash;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalBatch;
import java.util.SplittableRandom;

/**
 * One append of a child writer's mix: SYNCED, WRITTEN or BUFFERED by a drawn percentage, the rest
 * BUFFERED acknowledged later through {@code await} (at SYNCED or WRITTEN, drawn). The ledger line
 * records the level the append was acknowledged at.
 *
 * @param lsn the record's position.
 * @param level {@code 'S'}, {@code 'W'} or {@code 'B'}: the durability it was acknowledged with.
 */
public record MixedAppend(long lsn, char level) {
    /**
     * Appends a record at a durability the percentages choose.
     *
     * @param wal the log.
     * @param payload the record.
     * @param choice a number drawn from 0 to 99.
     * @param syncedBelow choices below this append SYNCED.
     * @param writtenBelow choices below this (and not below {@code syncedBelow}) append WRITTEN.
     * @param bufferedBelow choices below this (and not below {@code writtenBelow}) append BUFFERED; the
     *     rest append BUFFERED and then await SYNCED or WRITTEN.
     * @param random draws the awaited level.
     * @return the position and the acknowledged level.
     */
    public static MixedAppend append(
            final Wal wal,
            final byte[] payload,
            final int choice,
            final int syncedBelow,
            final int writtenBelow,
            final int bufferedBelow,
            final SplittableRandom random) {
        if (choice < syncedBelow) {
            return new MixedAppend(wal.append(payload, Durability.SYNCED), 'S');
        }
        if (choice < writtenBelow) {
            return new MixedAppend(wal.append(payload, Durability.WRITTEN), 'W');
        }
        if (choice < bufferedBelow) {
            return new MixedAppend(wal.append(payload, Durability.BUFFERED), 'B');
        }
        final long lsn = wal.append(payload, Durability.BUFFERED);
        final boolean synced = random.nextBoolean();
        wal.await(lsn, synced ? Durability.SYNCED : Durability.WRITTEN);
        return new MixedAppend(lsn, synced ? 'S' : 'W');
    }

    /**
     * Appends a batch at a durability the percentages choose, as {@link #append} does a record; the
     * awaited level of the last variant is awaited for the batch's last record, which acknowledges the
     * whole batch. Each record's LSN is then {@link WalBatch#lsn(int)}.
     *
     * @param wal the log.
     * @param batch the records.
     * @param choice a number drawn from 0 to 99.
     * @param syncedBelow choices below this append SYNCED.
     * @param writtenBelow choices below this (and not below {@code syncedBelow}) append WRITTEN.
     * @param bufferedBelow choices below this (and not below {@code writtenBelow}) append BUFFERED; the
     *     rest append BUFFERED and then await SYNCED or WRITTEN.
     * @param random draws the awaited level.
     * @return the position of the batch's first record and the acknowledged level.
     */
    public static MixedAppend appendBatch(
            final Wal wal,
            final WalBatch batch,
            final int choice,
            final int syncedBelow,
            final int writtenBelow,
            final int bufferedBelow,
            final SplittableRandom random) {
        if (choice < syncedBelow) {
            return new MixedAppend(wal.append(batch, Durability.SYNCED), 'S');
        }
        if (choice < writtenBelow) {
            return new MixedAppend(wal.append(batch, Durability.WRITTEN), 'W');
        }
        if (choice < bufferedBelow) {
            return new MixedAppend(wal.append(batch, Durability.BUFFERED), 'B');
        }
        final long lsn = wal.append(batch, Durability.BUFFERED);
        final boolean synced = random.nextBoolean();
        wal.await(batch.lsn(batch.size() - 1), synced ? Durability.SYNCED : Durability.WRITTEN);
        return new MixedAppend(lsn, synced ? 'S' : 'W');
    }
}
