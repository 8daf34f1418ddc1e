package io.walden.jraft;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alipay.sofa.jraft.storage.LogStorage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The paths of {@link JraftStoragePathsTest} (jraft's own storage calls, and jraft's real log manager
 * through conflicts and the three ways a snapshot touches the log), each on views of ONE shared group
 * log ({@link WaldenGroupsJRaftServiceFactory}) while {@value #CHURN_GROUPS} other groups of the same log
 * are appended to, truncated and reset by a background thread, a whole round of them forced between any
 * two writes of the path ({@link InterleavedLogStorage}); then every path at once, each in its own views
 * of one shared log. After each test the churned groups hold what their model says.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class GroupLogStoragePathsTest extends JraftStoragePathsTest {
    private static final int CHURN_GROUPS = 50;

    /** One path of the parent class, run on an instance. */
    @FunctionalInterface
    interface StoragePath {
        void run(JraftStoragePathsTest test) throws Exception;
    }

    // Test thread (set before any view is made): the shared log, its churn, this instance's view names.
    private WaldenGroupsJRaftServiceFactory factory;
    private GroupChurn churn;
    private String prefix = "";
    private boolean ownsSharedLog = true;

    @BeforeEach
    void openSharedLog() {
        factory = WaldenGroupsJRaftServiceFactory.open(
                WaldenGroupsJRaftServiceFactory.defaultConfig(tempDir.resolve("shared")));
        churn = new GroupChurn(factory, "", CHURN_GROUPS, 7).start();
    }

    @Override
    LogStorage newStorage(final String name) {
        return new InterleavedLogStorage(factory.createLogStorage(prefix + name, null), churn);
    }

    @Override
    void afterStorages() throws InterruptedException {
        if (!ownsSharedLog || factory == null) {
            return;
        }
        try {
            churn.stop();
            churn.check();
            churn.shutdownViews();
        } finally {
            factory.close();
        }
    }

    @Test
    void everyPathAtOnceInViewsOfOneSharedLog() throws Exception {
        final List<StoragePath> paths = List.of(
                JraftStoragePathsTest::anEmptyStoreStartsAtOneAndHoldsNothing,
                JraftStoragePathsTest::aFirstEntryAtOneHundredThenAGap,
                JraftStoragePathsTest::configurationEntriesAreReplayedAtInitInIndexOrder,
                JraftStoragePathsTest::entriesFromIndexZero,
                JraftStoragePathsTest::resetKeepsTheEntryAtTheNextIndex,
                JraftStoragePathsTest::truncatePrefixKeepsTheIndexKept,
                JraftStoragePathsTest::manyLargeEntriesFromZeroAndAReinitOfTheSameInstance,
                JraftStoragePathsTest::truncateSuffixKeepsTheFirstIndex,
                JraftStoragePathsTest::aFollowerResolvesAConflictByTruncatingTheSuffix,
                JraftStoragePathsTest::aSnapshotWithMatchingTermsTruncatesThePrefix,
                JraftStoragePathsTest::aSnapshotPastTheEndOfTheLogLeavesItToContinueAfterTheSnapshot,
                JraftStoragePathsTest::aSnapshotWhoseTermConflictsResetsTheLogAndTheFollowerAppendsFromThere,
                JraftStoragePathsTest
                        ::aSnapshotWhoseTermConflictsWithNoEntryAfterItResetsToANoOpThatTheFollowerOverwrites);
        final CountDownLatch start = new CountDownLatch(1);
        final List<Throwable> failures = new CopyOnWriteArrayList<>();
        final List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < paths.size(); i++) {
            final GroupLogStoragePathsTest test = new GroupLogStoragePathsTest();
            test.tempDir = tempDir.resolve("at-once-" + i);
            test.factory = factory;
            test.churn = churn;
            test.prefix = "at-once-" + i + "/";
            test.ownsSharedLog = false;
            final StoragePath path = paths.get(i);
            final Thread thread = new Thread(
                    () -> {
                        try {
                            start.await();
                            path.run(test);
                        } catch (final Throwable ex) {
                            failures.add(ex);
                        } finally {
                            try {
                                test.shutdownAll();
                            } catch (final Throwable ex) {
                                failures.add(ex);
                            }
                        }
                    },
                    "path-" + i);
            thread.start();
            threads.add(thread);
        }
        start.countDown();
        for (final Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(240));
            assertTrue(!thread.isAlive(), thread.getName() + " did not finish");
        }
        if (!failures.isEmpty()) {
            final AssertionError error = new AssertionError(failures.size() + " of " + paths.size() + " paths failed");
            failures.forEach(error::addSuppressed);
            throw error;
        }
    }
}
