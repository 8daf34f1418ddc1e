/**
 * Walden's Micrometer binder: a log's stats as meters ({@link io.walden.micrometer.WalMetrics}).
 * Micrometer's jars are automatic modules ({@code micrometer.core}, named in their manifests).
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module io.walden.micrometer {
    requires transitive io.walden.core;
    // MeterBinder and MeterRegistry are in this module's API.
    requires transitive micrometer.core;

    exports io.walden.micrometer;
}
