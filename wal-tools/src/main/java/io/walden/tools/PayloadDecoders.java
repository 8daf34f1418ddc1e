package io.walden.tools;

import io.walden.tools.spi.PayloadDecoder;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;

/**
 * Loads the {@link PayloadDecoder} named by {@code --decoder}: the one place the tool loads a class by
 * name, because the user names it. Every way it can fail is a usage error that names the class and
 * says what to do.
 *
 * <p><b>Threading:</b> stateless.
 */
final class PayloadDecoders {
    private static final String CLASS_PATH = "put its jar or directory on the class path next to the tool: java -cp"
            + " walden.jar:<your jar> io.walden.tools.Walden ... (java -jar ignores -cp)";

    private PayloadDecoders() {}

    /**
     * Loads a decoder class and makes an instance with its public no-argument constructor.
     *
     * @param className the class's binary name, e.g. {@code com.example.MyDecoder}.
     * @return the decoder.
     * @throws ToolException ({@link Walden#EXIT_USAGE}) naming the class if it cannot be loaded, does
     *     not implement {@link PayloadDecoder}, has no public no-argument constructor or fails in it.
     */
    static PayloadDecoder load(final String className) {
        final Class<?> type = find(className);
        if (!PayloadDecoder.class.isAssignableFrom(type)) {
            throw new ToolException(
                    Walden.EXIT_USAGE,
                    "--decoder " + className + " does not implement " + PayloadDecoder.class.getName()
                            + ": implement its String render(long lsn, ByteBuffer payload)");
        }
        if (type.isInterface() || Modifier.isAbstract(type.getModifiers())) {
            throw new ToolException(
                    Walden.EXIT_USAGE,
                    "--decoder " + className + " is abstract: name a concrete class with a public no-argument"
                            + " constructor");
        }
        final Constructor<?> constructor;
        try {
            constructor = type.getConstructor();
        } catch (final NoSuchMethodException ex) {
            throw new ToolException(
                    Walden.EXIT_USAGE,
                    "--decoder " + className + " has no public no-argument constructor: add one (and make the"
                            + " class public)",
                    ex);
        }
        try {
            return (PayloadDecoder) constructor.newInstance();
        } catch (final InvocationTargetException ex) {
            throw new ToolException(
                    Walden.EXIT_USAGE,
                    "--decoder " + className + ": its constructor failed: " + reason(ex.getCause()),
                    ex.getCause());
        } catch (final ExceptionInInitializerError ex) {
            throw new ToolException(
                    Walden.EXIT_USAGE,
                    "--decoder " + className + ": its static initializer failed: " + reason(ex.getCause()),
                    ex);
        } catch (final IllegalAccessException | InstantiationException ex) {
            throw new ToolException(
                    Walden.EXIT_USAGE,
                    "--decoder " + className + " cannot be made: " + ex.getMessage()
                            + "; make the class and its no-argument constructor public",
                    ex);
        }
    }

    /**
     * A failure of a user's class in words, without its class name (the tool's output holds none).
     *
     * @param failure the failure, or null.
     * @return its message, or that it had none.
     */
    static String reason(final Throwable failure) {
        if (failure == null
                || failure.getMessage() == null
                || failure.getMessage().isBlank()) {
            return "no message (--verbose shows the stack trace)";
        }
        return failure.getMessage();
    }

    private static Class<?> find(final String className) {
        final ClassLoader context = Thread.currentThread().getContextClassLoader();
        final ClassLoader loader = context != null ? context : PayloadDecoders.class.getClassLoader();
        try {
            return Class.forName(className, false, loader);
        } catch (final ClassNotFoundException ex) {
            throw new ToolException(
                    Walden.EXIT_USAGE,
                    "--decoder " + className + ": no such class on the class path; check the name (a binary"
                            + " name, e.g. com.example.Outer$Inner) and " + CLASS_PATH,
                    ex);
        } catch (final LinkageError ex) {
            throw new ToolException(
                    Walden.EXIT_USAGE,
                    "--decoder " + className + " cannot be loaded: " + reason(ex) + "; " + CLASS_PATH
                            + ", with the classes it needs",
                    ex);
        }
    }
}
