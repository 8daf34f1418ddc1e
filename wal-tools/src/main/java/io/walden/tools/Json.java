package io.walden.tools;

import java.util.List;

/**
 * Writes one JSON object, field by field: enough for {@code verify --json}, with no library.
 *
 * <p><b>Threading:</b> not thread-safe.
 */
final class Json {
    private final StringBuilder text = new StringBuilder("{");
    private boolean first = true;

    /**
     * A string field.
     *
     * @param name the name.
     * @param value the value.
     * @return this.
     */
    Json field(final String name, final String value) {
        name(name);
        quote(value);
        return this;
    }

    /**
     * A number field.
     *
     * @param name the name.
     * @param value the value.
     * @return this.
     */
    Json field(final String name, final long value) {
        name(name);
        text.append(value);
        return this;
    }

    /**
     * A boolean field.
     *
     * @param name the name.
     * @param value the value.
     * @return this.
     */
    Json field(final String name, final boolean value) {
        name(name);
        text.append(value);
        return this;
    }

    /**
     * A null field.
     *
     * @param name the name.
     * @return this.
     */
    Json nullField(final String name) {
        name(name);
        text.append("null");
        return this;
    }

    /**
     * An array of strings.
     *
     * @param name the name.
     * @param values the strings.
     * @return this.
     */
    Json array(final String name, final List<String> values) {
        name(name);
        text.append('[');
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) {
                text.append(',');
            }
            quote(values.get(i));
        }
        text.append(']');
        return this;
    }

    /**
     * Opens a nested object; {@link #end()} closes it.
     *
     * @param name the name.
     * @return this.
     */
    Json object(final String name) {
        name(name);
        text.append('{');
        first = true;
        return this;
    }

    /**
     * Closes the innermost object.
     *
     * @return this.
     */
    Json end() {
        text.append('}');
        first = false;
        return this;
    }

    @Override
    public String toString() {
        return text.toString();
    }

    private void name(final String name) {
        if (!first) {
            text.append(',');
        }
        first = false;
        quote(name);
        text.append(':');
    }

    private void quote(final String value) {
        text.append('"');
        for (int i = 0; i < value.length(); i++) {
            final char c = value.charAt(i);
            if (c == '"' || c == '\\') {
                text.append('\\').append(c);
            } else if (c < 0x20) {
                text.append(String.format("\\u%04x", (int) c));
            } else {
                text.append(c);
            }
        }
        text.append('"');
    }
}
