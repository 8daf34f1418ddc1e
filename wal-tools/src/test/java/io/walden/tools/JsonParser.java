package io.walden.tools;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict JSON parser (RFC 8259) for the tests of {@code --json}: it accepts exactly one JSON value
 * with optional white space around it and refuses everything else, with the offset: trailing text,
 * trailing commas, single quotes, unescaped control characters in strings, bad escapes, leading zeros,
 * lone surrogates in escapes, {@code NaN}, and duplicate member names (which the standard allows but no
 * output of the tool should hold). Objects become {@code Map<String, Object>} in member order, arrays
 * {@code List<Object>}, numbers {@code Long} (or {@code Double} with a fraction or exponent), and
 * {@code null} becomes {@link #NULL}.
 */
final class JsonParser {
    /** What JSON {@code null} parses to (maps cannot tell a null value from a missing one). */
    static final Object NULL = new Object() {
        @Override
        public String toString() {
            return "null";
        }
    };

    private final String text;
    private int at;

    private JsonParser(final String text) {
        this.text = text;
    }

    /**
     * Parses one JSON value.
     *
     * @param text the text.
     * @return the value.
     * @throws IllegalArgumentException if the text is not exactly one JSON value.
     */
    static Object parse(final String text) {
        final JsonParser parser = new JsonParser(text);
        parser.space();
        final Object value = parser.value(0);
        parser.space();
        if (parser.at != text.length()) {
            throw parser.fail("text after the value");
        }
        return value;
    }

    /**
     * Parses one JSON object.
     *
     * @param text the text.
     * @return the object.
     * @throws IllegalArgumentException if the text is not exactly one JSON object.
     */
    @SuppressWarnings("unchecked")
    static Map<String, Object> parseObject(final String text) {
        final Object value = parse(text);
        if (!(value instanceof Map)) {
            throw new IllegalArgumentException("not a JSON object: " + text);
        }
        return (Map<String, Object>) value;
    }

    private Object value(final int depth) {
        if (depth > 64) {
            throw fail("nested too deep");
        }
        if (at >= text.length()) {
            throw fail("a value expected, the text ended");
        }
        final char c = text.charAt(at);
        switch (c) {
            case '{':
                return object(depth);
            case '[':
                return array(depth);
            case '"':
                return string();
            case 't':
                return literal("true", Boolean.TRUE);
            case 'f':
                return literal("false", Boolean.FALSE);
            case 'n':
                return literal("null", NULL);
            default:
                if (c == '-' || (c >= '0' && c <= '9')) {
                    return number();
                }
                throw fail("a value expected, found '" + c + "'");
        }
    }

    private Map<String, Object> object(final int depth) {
        at++; // {
        final Map<String, Object> members = new LinkedHashMap<>();
        space();
        if (peek() == '}') {
            at++;
            return members;
        }
        while (true) {
            space();
            if (peek() != '"') {
                throw fail("a member name (a string) expected");
            }
            final String name = string();
            space();
            expect(':');
            space();
            if (members.containsKey(name)) {
                throw fail("duplicate member '" + name + "'");
            }
            members.put(name, value(depth + 1));
            space();
            if (peek() == ',') {
                at++;
            } else if (peek() == '}') {
                at++;
                return members;
            } else {
                throw fail("',' or '}' expected");
            }
        }
    }

    private List<Object> array(final int depth) {
        at++; // [
        final List<Object> elements = new ArrayList<>();
        space();
        if (peek() == ']') {
            at++;
            return Collections.unmodifiableList(elements);
        }
        while (true) {
            space();
            elements.add(value(depth + 1));
            space();
            if (peek() == ',') {
                at++;
            } else if (peek() == ']') {
                at++;
                return Collections.unmodifiableList(elements);
            } else {
                throw fail("',' or ']' expected");
            }
        }
    }

    private String string() {
        at++; // "
        final StringBuilder value = new StringBuilder();
        while (true) {
            if (at >= text.length()) {
                throw fail("the string is not closed");
            }
            final char c = text.charAt(at++);
            if (c == '"') {
                return value.toString();
            }
            if (c < 0x20) {
                throw fail("an unescaped control character U+" + String.format("%04X", (int) c) + " in a string");
            }
            if (c != '\\') {
                value.append(c);
                continue;
            }
            if (at >= text.length()) {
                throw fail("the escape is not complete");
            }
            final char e = text.charAt(at++);
            switch (e) {
                case '"', '\\', '/' -> value.append(e);
                case 'b' -> value.append('\b');
                case 'f' -> value.append('\f');
                case 'n' -> value.append('\n');
                case 'r' -> value.append('\r');
                case 't' -> value.append('\t');
                case 'u' -> value.append(unicodeEscape(value));
                default -> throw fail("a bad escape \\" + e);
            }
        }
    }

    private char unicodeEscape(final StringBuilder value) {
        if (at + 4 > text.length()) {
            throw fail("a \\u escape needs four hex digits");
        }
        final String hex = text.substring(at, at + 4);
        for (int i = 0; i < 4; i++) {
            if (Character.digit(hex.charAt(i), 16) < 0) {
                throw fail("a \\u escape needs four hex digits, not '" + hex + "'");
            }
        }
        at += 4;
        final char c = (char) Integer.parseInt(hex, 16);
        if (Character.isLowSurrogate(c)
                && (value.length() == 0 || !Character.isHighSurrogate(value.charAt(value.length() - 1)))) {
            throw fail("a lone low surrogate \\u" + hex);
        }
        if (Character.isHighSurrogate(c) && !text.startsWith("\\u", at)) {
            throw fail("a lone high surrogate \\u" + hex);
        }
        return c;
    }

    private Object number() {
        final int start = at;
        if (peek() == '-') {
            at++;
        }
        if (peek() == '0') {
            at++;
            if (Character.isDigit(peek())) {
                throw fail("a number with a leading zero");
            }
        } else {
            digits();
        }
        boolean integer = true;
        if (peek() == '.') {
            at++;
            digits();
            integer = false;
        }
        if (peek() == 'e' || peek() == 'E') {
            at++;
            if (peek() == '+' || peek() == '-') {
                at++;
            }
            digits();
            integer = false;
        }
        final String number = text.substring(start, at);
        return integer ? (Object) Long.parseLong(number) : (Object) Double.parseDouble(number);
    }

    private void digits() {
        if (!Character.isDigit(peek()) || peek() > '9') {
            throw fail("a digit expected");
        }
        while (peek() >= '0' && peek() <= '9') {
            at++;
        }
    }

    private Object literal(final String word, final Object value) {
        if (!text.startsWith(word, at)) {
            throw fail("'" + word + "' expected");
        }
        at += word.length();
        return value;
    }

    private void expect(final char c) {
        if (peek() != c) {
            throw fail("'" + c + "' expected");
        }
        at++;
    }

    private char peek() {
        return at < text.length() ? text.charAt(at) : '\0';
    }

    private void space() {
        while (at < text.length()) {
            final char c = text.charAt(at);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            at++;
        }
    }

    private IllegalArgumentException fail(final String what) {
        final int from = Math.max(0, at - 40);
        final int to = Math.min(text.length(), at + 40);
        return new IllegalArgumentException(
                "not JSON at offset " + at + ": " + what + ", near '" + text.substring(from, to) + "'");
    }
}
