package io.walden.internal.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The I/O duty's protocol under every interleaving of its threads, forced, never hoped for: the
 * threads of a scenario run one at a time, each stops at every named point of {@link IoDuty} (its
 * {@link IoDuty.Hook}) and at every park, and a depth-first search over the choice of which thread
 * goes on at each stop runs every distinct schedule once. Parking is a model of {@link
 * java.util.concurrent.locks.LockSupport}'s permits: a park that no unpark ends blocks until no other
 * thread can run, and is then ended as by its timeout, which counts as a lost wake if the scenario
 * still had work for the parked thread.
 *
 * <p>What this cannot show: memory-ordering bugs (a missing fence), since the threads never run at
 * once; those rest on the volatile accesses the class comment states.
 */
final class IoDutyScheduleTest {
    /** A point of the tests' own: a holder of the duty runs its round. */
    private static final int POINT_HOLDER_RUNS_ROUND = 100;

    private static final long LONG_PARK_NS = TimeUnit.HOURS.toNanos(1);
    /** Bounds every wait of the scheduler: reached only if the scheduler itself is broken. */
    private static final long STEP_TIMEOUT_MS = TimeUnit.SECONDS.toMillis(30);

    @Test
    void theDutyIsTakenOnlyWhenFree() {
        final IoDuty duty = new IoDuty();
        assertTrue(duty.isHeld(), "the I/O thread holds the duty from the start");
        assertFalse(duty.tryTake());
        duty.releaseForRest();
        assertTrue(duty.tryTake());
        assertFalse(duty.tryTake());
        duty.release();
        duty.takeBack();
        assertTrue(duty.isHeld());
    }

    @Test
    void aCompletionRoundNeedsAPendingCompletionAndAFreeDuty() {
        final IoDuty duty = new IoDuty();
        duty.releaseForRest();
        assertFalse(duty.tryTakeForCompletion(), "no completion pending");
        duty.signalCompletion();
        assertTrue(duty.isSignalled());
        assertTrue(duty.tryTakeForCompletion());
        assertFalse(duty.isSignalled(), "the round delivers the pending completion");
        duty.signalCompletion();
        assertFalse(duty.tryTakeForCompletion(), "the duty is held");
        duty.clearSignals(true);
        assertFalse(duty.isSignalled());
    }

    /**
     * The I/O thread lets go of the duty and parks while a lone appender either takes the duty, drives
     * its frame and leaves work behind, or finds the duty held and wakes the thread. Either way the
     * thread must not sleep through the work, and the two never hold the duty at once.
     */
    @Test
    void workLeftByAnAppenderNeverWaitsForTheParkTimeout() {
        final int schedules = explore(scenario -> {
            final Flags flags = new Flags();
            final IoDuty duty = scenario.duty;
            scenario.outstandingWork = () -> flags.workLeft;
            scenario.actor("io", () -> {
                duty.bindIoThread(Thread.currentThread());
                flags.ioHolds = false;
                duty.releaseAndPark(LONG_PARK_NS, () -> flags.workLeft);
                scenario.check(!flags.appenderHolds, "the I/O thread took the duty back while the appender held it");
                flags.ioHolds = true;
                flags.workLeft = false; // the round it runs now does the work
            });
            scenario.actor("appender", () -> {
                if (duty.tryTake()) {
                    scenario.check(!flags.ioHolds, "the appender took the duty while the I/O thread held it");
                    flags.appenderHolds = true;
                    scenario.at(POINT_HOLDER_RUNS_ROUND);
                    flags.workLeft = true; // its frame, driven but left unfinished
                    flags.appenderHolds = false;
                    duty.release();
                    duty.wakeIfWorkLeft(false, () -> flags.workLeft);
                } else {
                    flags.workLeft = true; // a SYNCED frame published; the appender wakes the thread
                    duty.wake();
                }
            });
        });
        assertTrue(schedules > 20, "schedules explored: " + schedules);
    }

    /**
     * A completion arrives while the I/O thread runs a round and then parks: the completion thread
     * runs a completion round if the duty is free, else leaves the flag, and the completion is
     * delivered by one of them, never left to the park's timeout.
     */
    @Test
    void aCompletionIsDeliveredByTheCompletionThreadOrTheIoThread() {
        explore(scenario -> {
            final Flags flags = new Flags();
            final IoDuty duty = scenario.duty;
            scenario.outstandingWork = () -> flags.completionArrived && !flags.completionDelivered;
            scenario.actor("io", () -> {
                duty.bindIoThread(Thread.currentThread());
                ioRound(duty, flags);
                flags.ioHolds = false;
                duty.releaseAndPark(LONG_PARK_NS, () -> false);
                scenario.check(!flags.completionRoundRuns, "the I/O thread took the duty during a completion round");
                flags.ioHolds = true;
                ioRound(duty, flags);
            });
            scenario.actor("completion", () -> {
                flags.completionArrived = true;
                duty.signalCompletion();
                while (duty.tryTakeForCompletion()) {
                    scenario.check(!flags.ioHolds, "a completion round ran while the I/O thread held the duty");
                    flags.completionRoundRuns = true;
                    scenario.at(POINT_HOLDER_RUNS_ROUND);
                    flags.completionDelivered |= flags.completionArrived; // the round polls
                    flags.completionRoundRuns = false;
                    duty.release();
                    duty.wakeIfWorkLeft(false, () -> false);
                }
            });
        });
    }

    /**
     * The I/O thread ends a rest by taking the duty back while an appender holds it: it waits, and the
     * appender's release unparks it; the wait never outlasts the holder.
     */
    @Test
    void theIoThreadTakingTheDutyBackIsUnparkedByTheRelease() {
        final int schedules = explore(scenario -> {
            final Flags flags = new Flags();
            final IoDuty duty = scenario.duty;
            scenario.outstandingWork = () -> !duty.isHeld(); // a free duty the I/O thread waits for
            scenario.actor("io", () -> {
                duty.bindIoThread(Thread.currentThread());
                flags.ioHolds = false;
                duty.releaseForRest();
                duty.takeBack();
                scenario.check(!flags.appenderHolds, "the I/O thread took the duty back while the appender held it");
                flags.ioHolds = true;
            });
            scenario.actor("appender", () -> {
                if (duty.tryTake()) {
                    scenario.check(!flags.ioHolds, "the appender took the duty while the I/O thread held it");
                    flags.appenderHolds = true;
                    scenario.at(POINT_HOLDER_RUNS_ROUND);
                    flags.appenderHolds = false;
                    duty.release();
                }
            });
        });
        assertTrue(schedules >= 5, "schedules explored: " + schedules);
    }

    /** Three contenders while the I/O thread rests: at most one holds the duty at any time. */
    @Test
    void anAppenderAndTheCompletionThreadNeverHoldTheDutyTogether() {
        explore(scenario -> {
            final Flags flags = new Flags();
            final IoDuty duty = scenario.duty;
            scenario.outstandingWork = () -> !duty.isHeld();
            scenario.actor("io", () -> {
                duty.bindIoThread(Thread.currentThread());
                flags.ioHolds = false;
                duty.releaseForRest();
                duty.takeBack();
                scenario.check(!flags.appenderHolds && !flags.completionRoundRuns, "two holders");
                flags.ioHolds = true;
            });
            scenario.actor("appender", () -> {
                if (duty.tryTake()) {
                    scenario.check(!flags.ioHolds && !flags.completionRoundRuns, "two holders");
                    flags.appenderHolds = true;
                    scenario.at(POINT_HOLDER_RUNS_ROUND);
                    flags.appenderHolds = false;
                    duty.release();
                }
            });
            scenario.actor("completion", () -> {
                duty.signalCompletion();
                while (duty.tryTakeForCompletion()) {
                    scenario.check(!flags.ioHolds && !flags.appenderHolds, "two holders");
                    flags.completionRoundRuns = true;
                    scenario.at(POINT_HOLDER_RUNS_ROUND);
                    flags.completionRoundRuns = false;
                    duty.release();
                }
            });
        });
    }

    /** The I/O thread's round: clears its signals, then polls, delivering what arrived before. */
    private static void ioRound(final IoDuty duty, final Flags flags) {
        duty.clearSignals(true);
        flags.completionDelivered |= flags.completionArrived;
    }

    /** What the scenarios' threads share; only one thread runs at a time, so plain fields do. */
    private static final class Flags {
        boolean ioHolds = true;
        boolean appenderHolds;
        boolean completionRoundRuns;
        boolean workLeft;
        boolean completionArrived;
        boolean completionDelivered;
    }

    /**
     * Runs a scenario under every schedule, depth first: each run follows a prefix of choices and
     * takes the first option beyond it; the next prefix advances the last choice that has options
     * left.
     *
     * @return how many schedules ran.
     */
    private static int explore(final Consumer<Scenario> build) {
        List<Integer> prefix = new ArrayList<>();
        int runs = 0;
        while (prefix != null) {
            final Scenario scenario = new Scenario(prefix);
            build.accept(scenario);
            scenario.run();
            runs++;
            prefix = scenario.nextPrefix();
        }
        System.out.println("IoDutyScheduleTest: " + runs + " schedules, each ran to its end");
        return runs;
    }

    /** Where a scenario's threads stand; guarded by the scenario's monitor. */
    private enum ActorState {
        /** Stopped at a point, waiting to be chosen. */
        READY,
        /** The one thread running. */
        RUNNING,
        /** In a park that no unpark has ended. */
        PARKED,
        /** Finished. */
        DONE
    }

    private static final class Actor {
        final String name;
        final Runnable body;
        Thread thread;
        ActorState state = ActorState.READY;
        boolean permit;

        Actor(final String name, final Runnable body) {
            this.name = name;
            this.body = body;
        }
    }

    /** One run of a scenario under one schedule: the hook, the parking model and the scheduler. */
    private static final class Scenario implements IoDuty.Hook, IoDuty.Parking {
        final IoDuty duty = new IoDuty(this, this);
        final List<Actor> actors = new ArrayList<>();
        final Map<Thread, Actor> byThread = new IdentityHashMap<>();
        final List<Integer> prefix;
        final List<Integer> choices = new ArrayList<>();
        final List<Integer> options = new ArrayList<>();
        final StringBuilder trace = new StringBuilder();
        java.util.function.BooleanSupplier outstandingWork = () -> false;
        String violation;

        Scenario(final List<Integer> prefix) {
            this.prefix = prefix;
        }

        void actor(final String name, final Runnable body) {
            actors.add(new Actor(name, body));
        }

        /** Records a violation of the scenario's invariant (the first one counts). */
        void check(final boolean holds, final String what) {
            synchronized (this) {
                if (!holds && violation == null) {
                    violation = what;
                }
            }
        }

        void run() {
            for (final Actor actor : actors) {
                actor.thread = new Thread(() -> runActor(actor), "schedule-" + actor.name);
                byThread.put(actor.thread, actor);
            }
            for (final Actor actor : actors) {
                actor.thread.start();
            }
            synchronized (this) {
                while (true) {
                    awaitNoneRunning();
                    final List<Actor> ready = new ArrayList<>();
                    Actor parked = null;
                    for (final Actor actor : actors) {
                        if (actor.state == ActorState.READY) {
                            ready.add(actor);
                        } else if (actor.state == ActorState.PARKED && parked == null) {
                            parked = actor;
                        }
                    }
                    if (ready.isEmpty()) {
                        if (parked == null) {
                            break;
                        }
                        // Nothing else can run: the park ends by its timeout.
                        trace.append(' ').append(parked.name).append(":timeout");
                        if (outstandingWork.getAsBoolean() && violation == null) {
                            violation = parked.name + " slept through work left for it (a lost wake)";
                        }
                        parked.state = ActorState.READY;
                        continue;
                    }
                    final Actor next = ready.get(choose(ready.size()));
                    next.state = ActorState.RUNNING;
                    notifyAll();
                }
            }
            for (final Actor actor : actors) {
                join(actor.thread);
            }
            if (violation != null) {
                throw new AssertionError(violation + "; schedule" + trace);
            }
        }

        private int choose(final int optionCount) {
            final int index = choices.size();
            final int choice = index < prefix.size() ? prefix.get(index) : 0;
            assertTrue(choice < optionCount, "the scenario is not deterministic");
            choices.add(choice);
            options.add(optionCount);
            return choice;
        }

        List<Integer> nextPrefix() {
            for (int i = choices.size() - 1; i >= 0; i--) {
                if (choices.get(i) + 1 < options.get(i)) {
                    final List<Integer> next = new ArrayList<>(choices.subList(0, i));
                    next.add(choices.get(i) + 1);
                    return next;
                }
            }
            return null;
        }

        private void runActor(final Actor actor) {
            try {
                synchronized (this) {
                    awaitTurn(actor);
                }
                actor.body.run();
            } catch (final Throwable ex) {
                check(false, actor.name + " threw " + ex);
            } finally {
                synchronized (this) {
                    actor.state = ActorState.DONE;
                    notifyAll();
                }
            }
        }

        @Override
        public void at(final int point) {
            synchronized (this) {
                final Actor me = byThread.get(Thread.currentThread());
                trace.append(' ').append(me.name).append('@').append(point);
                me.state = ActorState.READY;
                notifyAll();
                awaitTurn(me);
            }
        }

        @Override
        public void park(final Object blocker, final long parkNs) {
            synchronized (this) {
                final Actor me = byThread.get(Thread.currentThread());
                if (me.permit) {
                    me.permit = false;
                    trace.append(' ').append(me.name).append(":park(permit)");
                    me.state = ActorState.READY;
                } else {
                    trace.append(' ').append(me.name).append(":park");
                    me.state = ActorState.PARKED;
                }
                notifyAll();
                awaitTurn(me);
            }
        }

        @Override
        public void unpark(final Thread thread) {
            synchronized (this) {
                final Actor target = thread == null ? null : byThread.get(thread);
                if (target == null) {
                    return;
                }
                trace.append(' ').append("unpark(").append(target.name).append(')');
                if (target.state == ActorState.PARKED) {
                    target.state = ActorState.READY;
                } else {
                    target.permit = true;
                }
            }
        }

        /** Under the monitor: waits until the scheduler chooses this actor. */
        private void awaitTurn(final Actor me) {
            final long deadline = System.currentTimeMillis() + STEP_TIMEOUT_MS;
            while (me.state != ActorState.RUNNING) {
                waitUntil(deadline);
            }
        }

        /** Under the monitor: waits until the running thread stops at a point, parks or ends. */
        private void awaitNoneRunning() {
            final long deadline = System.currentTimeMillis() + STEP_TIMEOUT_MS;
            while (actors.stream().anyMatch(a -> a.state == ActorState.RUNNING)) {
                waitUntil(deadline);
            }
        }

        private void waitUntil(final long deadlineMs) {
            final long leftMs = deadlineMs - System.currentTimeMillis();
            if (leftMs <= 0) {
                throw new AssertionError("the scheduler stalled; schedule" + trace);
            }
            try {
                wait(leftMs);
            } catch (final InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", ex);
            }
        }

        private static void join(final Thread thread) {
            try {
                thread.join(STEP_TIMEOUT_MS);
            } catch (final InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            assertEquals(Thread.State.TERMINATED, thread.getState(), thread.getName() + " did not end");
        }
    }
}
