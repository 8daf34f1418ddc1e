/**
 * Walden's test kit: crash-test a system built on Walden. A simulated storage backend ({@link
 * io.walden.testkit.SimulatedStorage}) that loses what was not synced at a simulated power failure,
 * injects I/O errors and delays, and replays the crash states of a run; checks of what a log promised
 * ({@link io.walden.testkit.AckLedger}); and a JUnit 5 extension ({@link io.walden.testkit.WalCrashTest})
 * that runs a test over many seeded crash points. JUnit is optional: only the extension needs it.
 */
module io.walden.testkit {
    requires transitive io.walden.core;
    // The fail-stop errors a log logs at every simulated power failure are silenced during trials.
    requires java.logging;
    // @WalCrashTest and its extension only; an application without JUnit 5 uses the rest.
    requires static transitive org.junit.jupiter.api;
    requires static org.junit.platform.commons;

    exports io.walden.testkit;
}
