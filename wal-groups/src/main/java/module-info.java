/**
 * Walden's group log: many Raft groups or partitions in one Walden log ({@link
 * io.walden.groups.GroupLog}). Everything under {@code io.walden.groups.internal} is the
 * implementation and is not exported.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module io.walden.groups {
    requires transitive io.walden.core;

    exports io.walden.groups;
}
