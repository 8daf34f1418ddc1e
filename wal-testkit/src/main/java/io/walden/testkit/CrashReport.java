package io.walden.testkit;

/**
 * What a simulated power failure kept and lost: where in the disk's history it struck, and, of what
 * was not durable then, which 4 KiB pages survived in their newest version, in none (the durable
 * content), or in a version in between, which were torn at 512-byte sectors, which directory
 * operations were kept or forgotten, and which files fell back to their last synced size. Durable
 * state (synced writes, directory operations a directory sync covered) is always kept.
 *
 * <p>{@link #toString()} lists every choice, page by page, for a failure message.
 *
 * <p><b>Threading:</b> immutable.
 */
public final class CrashReport {
    private final int eventCount;
    private final int historyLength;
    private final int pagesUnsynced;
    private final int pagesKept;
    private final int pagesLost;
    private final int pagesOlder;
    private final int pagesTorn;
    private final int directoryOperationsKept;
    private final int directoryOperationsForgotten;
    private final int filesShortened;
    private final String choices;

    private CrashReport(final Builder builder, final int eventCount, final int historyLength) {
        this.eventCount = eventCount;
        this.historyLength = historyLength;
        this.pagesUnsynced = builder.pagesUnsynced;
        this.pagesKept = builder.pagesKept;
        this.pagesLost = builder.pagesLost;
        this.pagesOlder = builder.pagesOlder;
        this.pagesTorn = builder.pagesTorn;
        this.directoryOperationsKept = builder.directoryOperationsKept;
        this.directoryOperationsForgotten = builder.directoryOperationsForgotten;
        this.filesShortened = builder.filesShortened;
        this.choices = builder.text.toString();
    }

    /** @return how many events of the disk's history happened before the power failed. */
    public int eventCount() {
        return eventCount;
    }

    /** @return how many events the history holds in all (the crash may have struck before its end). */
    public int historyLength() {
        return historyLength;
    }

    /** @return 4 KiB pages that unsynced writes had changed when the power failed. */
    public int pagesUnsynced() {
        return pagesUnsynced;
    }

    /** @return unsynced pages that survived in their newest version. */
    public int pagesKept() {
        return pagesKept;
    }

    /** @return unsynced pages that survived in none of their unsynced versions (the durable content). */
    public int pagesLost() {
        return pagesLost;
    }

    /** @return unsynced pages that survived in a version older than the newest, newer than the durable. */
    public int pagesOlder() {
        return pagesOlder;
    }

    /** @return pages torn: some 512-byte sectors from one version, the others from an older one. */
    public int pagesTorn() {
        return pagesTorn;
    }

    /** @return unsynced creates, renames and deletes that survived. */
    public int directoryOperationsKept() {
        return directoryOperationsKept;
    }

    /** @return unsynced creates, renames and deletes that were forgotten. */
    public int directoryOperationsForgotten() {
        return directoryOperationsForgotten;
    }

    /** @return files whose size fell back to their last synced size. */
    public int filesShortened() {
        return filesShortened;
    }

    /** @return whether the crash kept everything that was not durable: no loss, no tear, nothing forgotten. */
    public boolean keptEverything() {
        return pagesKept == pagesUnsynced && pagesTorn == 0 && directoryOperationsForgotten == 0 && filesShortened == 0;
    }

    /** @return a summary, then every choice made, for failure messages. */
    @Override
    public String toString() {
        return "power failed after event " + eventCount + " of " + historyLength + ": " + pagesUnsynced
                + " unsynced page(s), " + pagesKept + " kept, " + pagesLost + " lost, " + pagesOlder + " older, "
                + pagesTorn + " torn; directory operations " + directoryOperationsKept + " kept, "
                + directoryOperationsForgotten + " forgotten; " + filesShortened + " file(s) shortened; choices: "
                + choices;
    }

    /**
     * Collects the choices of one crash as they are made.
     *
     * <p><b>Threading:</b> one thread.
     */
    static final class Builder {
        private final StringBuilder text = new StringBuilder();
        private int pagesUnsynced;
        private int pagesKept;
        private int pagesLost;
        private int pagesOlder;
        private int pagesTorn;
        private int directoryOperationsKept;
        private int directoryOperationsForgotten;
        private int filesShortened;

        /** No directory operation was unsynced. */
        void directoryAllDurable() {
            text.append("dir: nothing unsynced;");
        }

        /**
         * The directory operations are about to be chosen.
         *
         * @param prefix whether they are kept as a prefix (else any subset).
         */
        void directoryMode(final boolean prefix) {
            text.append("dir(").append(prefix ? "prefix" : "subset").append("):");
        }

        /**
         * One unsynced directory operation was kept or forgotten.
         *
         * @param kept whether it survived.
         * @param operation what it was.
         */
        void directoryOperation(final boolean kept, final Object operation) {
            text.append(kept ? " kept[" : " forgot[").append(operation).append(']');
            if (kept) {
                directoryOperationsKept++;
            } else {
                directoryOperationsForgotten++;
            }
        }

        /** The directory operations were chosen. */
        void directoryDone() {
            text.append(';');
        }

        /**
         * The page settings of this crash.
         *
         * @param keepProbability how likely an unsynced page survives in its newest version.
         * @param tearProbability how likely a surviving page is torn.
         * @param mayRevertSize whether file sizes may fall back to their synced size.
         */
        void pageSettings(final double keepProbability, final double tearProbability, final boolean mayRevertSize) {
            text.append(" pages(keep=")
                    .append(keepProbability)
                    .append(", tear=")
                    .append(tearProbability)
                    .append(", revertSize=")
                    .append(mayRevertSize)
                    .append("):");
        }

        /**
         * A file fell back to its synced size.
         *
         * @param name the file.
         * @param sizeBytes the size it has now.
         */
        void sizeReverted(final String name, final long sizeBytes) {
            filesShortened++;
            text.append(' ')
                    .append(name)
                    .append(" size reverted to ")
                    .append(sizeBytes)
                    .append(';');
        }

        /**
         * The version an unsynced page survived in.
         *
         * @param name the file.
         * @param pageStart the page's offset in the file.
         * @param chosen the version: 0 the durable content, {@code newest} the last write's.
         * @param newest how many unsynced writes touched the page.
         * @param tornAgainst the older version the unset sectors of {@code tornMask} come from; -1 if
         *     not torn.
         * @param tornMask per sector, 1 if it holds the chosen version.
         */
        void page(
                final String name,
                final long pageStart,
                final int chosen,
                final int newest,
                final int tornAgainst,
                final int tornMask) {
            pagesUnsynced++;
            if (chosen == newest) {
                pagesKept++;
            } else if (chosen == 0) {
                pagesLost++;
            } else {
                pagesOlder++;
            }
            if (tornAgainst >= 0) {
                pagesTorn++;
            }
            if (chosen == newest && tornAgainst < 0) {
                return;
            }
            text.append(' ')
                    .append(name)
                    .append('@')
                    .append(pageStart)
                    .append('=')
                    .append(chosen)
                    .append('/')
                    .append(newest);
            if (tornAgainst >= 0) {
                text.append(" torn vs ")
                        .append(tornAgainst)
                        .append(" sectors ")
                        .append(Integer.toBinaryString(tornMask | 0x100).substring(1));
            }
            text.append(';');
        }

        /**
         * The report.
         *
         * @param eventCount where the power failed.
         * @param historyLength how long the history is.
         * @return the report.
         */
        CrashReport build(final int eventCount, final int historyLength) {
            return new CrashReport(this, eventCount, historyLength);
        }
    }
}
