package io.walden.uring.ffm;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs a test class only where this backend can run; elsewhere it is skipped with the reason ({@link
 * FfmUringSupport#unavailableReason()}). CI refuses any such skip.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(EnabledIfFfmUring.Condition.class)
@interface EnabledIfFfmUring {
    /** Evaluates availability once per JVM. */
    final class Condition implements ExecutionCondition {
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(final ExtensionContext context) {
            final String reason = FfmUringSupport.unavailableReason();
            return reason == null
                    ? ConditionEvaluationResult.enabled("io_uring is available")
                    : ConditionEvaluationResult.disabled("skipped: io_uring is not available here: " + reason);
        }
    }
}
