package io.walden.bench;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The command-line options of a harness subcommand: {@code --name value} pairs and bare {@code
 * --flag}s. Every option a subcommand reads must be declared, so that a misspelt option fails
 * instead of being ignored.
 *
 * <p><b>Threading:</b> not thread-safe; used by the main thread.
 */
final class Args {
    private final String command;
    private final Map<String, String> values = new HashMap<>();
    private final Set<String> flags = new HashSet<>();

    private Args(final String command) {
        this.command = command;
    }

    /**
     * Parses arguments.
     *
     * @param command the subcommand, for messages.
     * @param arguments the arguments after the subcommand.
     * @param valueOptions options that take a value, without the leading dashes.
     * @param flagOptions options that take none.
     * @return the parsed options.
     * @throws IllegalArgumentException naming the argument it refuses.
     */
    static Args parse(
            final String command,
            final String[] arguments,
            final List<String> valueOptions,
            final List<String> flagOptions) {
        final Args args = new Args(command);
        for (int i = 0; i < arguments.length; i++) {
            final String argument = arguments[i];
            if (!argument.startsWith("--")) {
                throw new IllegalArgumentException(command + ": unexpected argument '" + argument + "'");
            }
            final String name = argument.substring(2);
            if (flagOptions.contains(name)) {
                args.flags.add(name);
            } else if (valueOptions.contains(name)) {
                if (i + 1 >= arguments.length) {
                    throw new IllegalArgumentException(command + ": option --" + name + " needs a value");
                }
                args.values.put(name, arguments[++i]);
            } else {
                throw new IllegalArgumentException(command + ": unknown option --" + name + "; options: --"
                        + String.join(", --", valueOptions) + (flagOptions.isEmpty() ? "" : ", --")
                        + String.join(", --", flagOptions));
            }
        }
        return args;
    }

    boolean flag(final String name) {
        return flags.contains(name);
    }

    String string(final String name, final String defaultValue) {
        return values.getOrDefault(name, defaultValue);
    }

    long number(final String name, final long defaultValue) {
        final String text = values.get(name);
        if (text == null) {
            return defaultValue;
        }
        try {
            return Long.parseLong(text.replace("_", ""));
        } catch (final NumberFormatException ex) {
            throw new IllegalArgumentException(
                    command + ": option --" + name + " needs a whole number, not '" + text + "'", ex);
        }
    }

    int integer(final String name, final int defaultValue) {
        final long value = number(name, defaultValue);
        if (value < 0 || value > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(command + ": option --" + name + "=" + value + " is out of range");
        }
        return (int) value;
    }
}
