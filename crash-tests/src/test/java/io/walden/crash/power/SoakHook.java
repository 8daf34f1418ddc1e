package io.walden.crash.power;

import io.walden.crash.CrashBudget;
import java.util.SplittableRandom;
import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

/**
 * Under the soak profile, runs a property again and again, each time with a new seed, until its share
 * of the soak time has passed or a run fails; in a normal build, runs it once.
 *
 * <p><b>Threading:</b> called by the jqwik engine.
 */
public final class SoakHook implements AroundPropertyHook {
    /** This suite's share of the soak time. */
    static final double SOAK_SHARE = 0.4;

    /** Created by jqwik. */
    public SoakHook() {}

    @Override
    public PropertyExecutionResult aroundProperty(
            final PropertyLifecycleContext context, final PropertyExecutor property) {
        if (!CrashBudget.soak()) {
            return property.execute();
        }
        final long deadlineNs = CrashBudget.soakDeadlineNanos(SOAK_SHARE);
        final SplittableRandom seeds = new SplittableRandom();
        PropertyExecutionResult result;
        int rounds = 0;
        do {
            context.attributes().setSeed(Long.toString(seeds.nextLong()));
            result = property.execute();
            rounds++;
        } while (result.status() == PropertyExecutionResult.Status.SUCCESSFUL && System.nanoTime() - deadlineNs < 0);
        System.out.println("power-loss soak: " + rounds + " rounds of " + context.label());
        return result;
    }
}
