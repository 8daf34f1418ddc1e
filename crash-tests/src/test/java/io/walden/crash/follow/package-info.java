/**
 * A read-only view following a live log written by another process: a child JVM ({@link
 * io.walden.crash.follow.FollowedWriter}) appends with mixed durability, rolls segments and truncates
 * behind the followers, while views in the test JVM follow it ({@link
 * io.walden.crash.follow.LiveFollowerTest}) and must see every record once, in order, intact, never a
 * record not yet durable to a durable reader, and change nothing in the directory.
 */
package io.walden.crash.follow;
