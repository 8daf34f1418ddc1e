package io.walden.testkit;

import io.walden.spi.StorageOptions;
import java.lang.reflect.Method;
import java.util.List;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.commons.support.ReflectionSupport;

/**
 * The JUnit 5 extension behind {@link WalCrashTest}: it resolves the {@link CrashTrial} parameter, and
 * instead of invoking the test method once, runs it once per trial through {@link CrashTrials}, each
 * time with a new trial in place of that parameter. Registered by the annotation; not for direct use.
 *
 * <p><b>Threading:</b> stateless; JUnit calls it on the test's thread.
 */
public final class WalCrashExtension implements ParameterResolver, InvocationInterceptor {
    /** Creates the extension; JUnit does, through {@link WalCrashTest}. */
    public WalCrashExtension() {}

    @Override
    public boolean supportsParameter(final ParameterContext parameterContext, final ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == CrashTrial.class;
    }

    /**
     * Resolves the parameter to null: {@link #interceptTestMethod} puts each trial in its place.
     *
     * @param parameterContext the parameter.
     * @param extensionContext the test.
     * @return null.
     */
    @Override
    public Object resolveParameter(final ParameterContext parameterContext, final ExtensionContext extensionContext) {
        return null;
    }

    @Override
    public void interceptTestMethod(
            final Invocation<Void> invocation,
            final ReflectiveInvocationContext<Method> invocationContext,
            final ExtensionContext extensionContext) {
        invocation.skip();
        final Method method = invocationContext.getExecutable();
        final WalCrashTest settings = AnnotationSupport.findAnnotation(method, WalCrashTest.class)
                .orElseThrow(() -> new IllegalStateException(method + " is not annotated @WalCrashTest"));
        final Class<?>[] types = method.getParameterTypes();
        final List<Object> resolved = invocationContext.getArguments();
        CrashTrials trials = CrashTrials.named(extensionContext.getDisplayName())
                .trials(settings.trials())
                .storageOptions(new StorageOptions(settings.directIo(), settings.dsync()))
                .shrinkAttempts(settings.shrinkAttempts());
        if (settings.seed() != 0) {
            trials = trials.seed(settings.seed());
        }
        if (!settings.replay().isBlank()) {
            trials = trials.replay(settings.replay());
        }
        final Object target = invocationContext.getTarget().orElse(null);
        trials.run(trial -> {
            final Object[] arguments = resolved.toArray();
            for (int i = 0; i < types.length; i++) {
                if (types[i] == CrashTrial.class) {
                    arguments[i] = trial;
                }
            }
            ReflectionSupport.invokeMethod(method, target, arguments);
        });
    }
}
