package io.walden.tools;

import java.util.List;

/**
 * Writes JSON straight into a {@link LineWriter}, member by member, with no library and no string per
 * field: the one-object outputs of {@code --json} ({@code verify}, {@code stat}, the errors) and the
 * object-per-line outputs of {@code dump} and {@code tail}. Objects and arrays nest; commas and
 * string escapes (RFC 8259) are written here, so the caller cannot get them wrong. A null string is
 * written as {@code null}.
 *
 * <p><b>Threading:</b> not thread-safe; one command writes through it.
 */
final class Json {
    private static final int DEPTH_MAX = 16;

    private final LineWriter out;
    // Per open level: whether the next member is the first (no comma), and whether it is an array.
    private final boolean[] first = new boolean[DEPTH_MAX];
    private final boolean[] array = new boolean[DEPTH_MAX];
    private int depth;

    /**
     * Creates a writer.
     *
     * @param out where the JSON text goes.
     */
    Json(final LineWriter out) {
        this.out = out;
    }

    /**
     * Opens an object: the top-level one, or an element of the array being written.
     *
     * @return this.
     */
    Json begin() {
        if (depth > 0) {
            if (!array[depth - 1]) {
                throw new IllegalStateException("a JSON object without a name inside an object");
            }
            separate();
        }
        return open('{', false);
    }

    /**
     * A string member.
     *
     * @param name the name.
     * @param value the value, or null.
     * @return this.
     */
    Json field(final String name, final String value) {
        name(name);
        if (value == null) {
            out.text("null");
        } else {
            quote(out, value);
        }
        return this;
    }

    /**
     * A number member.
     *
     * @param name the name.
     * @param value the value.
     * @return this.
     */
    Json field(final String name, final long value) {
        name(name);
        out.number(value);
        return this;
    }

    /**
     * A boolean member.
     *
     * @param name the name.
     * @param value the value.
     * @return this.
     */
    Json field(final String name, final boolean value) {
        name(name);
        out.text(value ? "true" : "false");
        return this;
    }

    /**
     * A null member.
     *
     * @param name the name.
     * @return this.
     */
    Json nullField(final String name) {
        name(name);
        out.text("null");
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
        out.character('[');
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) {
                out.character(',');
            }
            quote(out, values.get(i));
        }
        out.character(']');
        return this;
    }

    /**
     * Opens a nested object member; {@link #end()} closes it.
     *
     * @param name the name.
     * @return this.
     */
    Json object(final String name) {
        name(name);
        return open('{', false);
    }

    /**
     * Opens an array member whose elements are objects, each opened with {@link #begin()}; {@link
     * #end()} closes it.
     *
     * @param name the name.
     * @return this.
     */
    Json array(final String name) {
        name(name);
        return open('[', true);
    }

    /**
     * Starts a member whose value the caller writes next, straight into the line writer (a payload
     * rendered in place).
     *
     * @param name the name.
     * @return the line writer, to write one JSON value into.
     */
    LineWriter value(final String name) {
        name(name);
        return out;
    }

    /**
     * Closes the innermost object or array.
     *
     * @return this.
     */
    Json end() {
        if (depth == 0) {
            throw new IllegalStateException("no open JSON object or array to end");
        }
        depth--;
        out.character(array[depth] ? ']' : '}');
        return this;
    }

    /** Closes the top-level object and ends the line: one JSON object per line. */
    void endLine() {
        end();
        if (depth != 0) {
            throw new IllegalStateException("JSON line ended with " + depth + " level(s) still open");
        }
        out.newline();
    }

    /**
     * Writes a string as a JSON string literal: quotes, backslashes and control characters escaped.
     *
     * @param out where it goes.
     * @param value the string.
     */
    static void quote(final LineWriter out, final CharSequence value) {
        out.character('"');
        for (int i = 0; i < value.length(); i++) {
            escape(out, value.charAt(i));
        }
        out.character('"');
    }

    /**
     * Writes one character of a JSON string's content, escaped where JSON requires it, and also where
     * a terminal would act on it or a reader take it for a line end (DEL, the C1 controls, the line and
     * paragraph separators): the same string is safe in a text line, which is how {@code --payload
     * utf8} shows payloads.
     *
     * @param out where it goes.
     * @param c the character.
     */
    static void escape(final LineWriter out, final char c) {
        if (c == '"' || c == '\\') {
            out.character('\\').character(c);
        } else if (c == '\n') {
            out.text("\\n");
        } else if (c == '\r') {
            out.text("\\r");
        } else if (c == '\t') {
            out.text("\\t");
        } else if (c < 0x20 || c == 0x7F || (c >= 0x80 && c < 0xA0) || c == 0x2028 || c == 0x2029) {
            out.text("\\u").hex(c, 4);
        } else {
            out.character(c);
        }
    }

    private Json open(final char bracket, final boolean isArray) {
        if (depth == DEPTH_MAX) {
            throw new IllegalStateException("JSON nested deeper than " + DEPTH_MAX + " levels");
        }
        out.character(bracket);
        first[depth] = true;
        array[depth] = isArray;
        depth++;
        return this;
    }

    private void name(final String name) {
        if (depth == 0 || array[depth - 1]) {
            throw new IllegalStateException("a JSON member '" + name + "' outside an object");
        }
        separate();
        quote(out, name);
        out.character(':');
    }

    private void separate() {
        if (!first[depth - 1]) {
            out.character(',');
        }
        first[depth - 1] = false;
    }
}
