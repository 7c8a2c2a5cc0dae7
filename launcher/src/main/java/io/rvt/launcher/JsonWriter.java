package io.rvt.launcher;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;

/**
 * A small streaming JSON writer (RFC 8259): objects, arrays, strings with escapes, whole and decimal numbers,
 * booleans; two-space indentation. Names and values must alternate correctly inside objects; misuse throws
 * {@link IllegalStateException}. Non-finite numbers are written as {@code null}, which JSON has instead.
 */
final class JsonWriter {
    private final StringBuilder sb = new StringBuilder();
    /** Per open container: true while it is still empty. */
    private final Deque<Boolean> empty = new ArrayDeque<>();
    /** Per open container: true for an object. */
    private final Deque<Boolean> objects = new ArrayDeque<>();
    private boolean afterName;

    /** @return this writer after opening an object */
    JsonWriter beginObject() {
        return open('{', true);
    }

    /** @return this writer after closing the current object */
    JsonWriter endObject() {
        return close('}', true);
    }

    /** @return this writer after opening an array */
    JsonWriter beginArray() {
        return open('[', false);
    }

    /** @return this writer after closing the current array */
    JsonWriter endArray() {
        return close(']', false);
    }

    /**
     * @param name the member name of the next value (inside an object only)
     * @return this writer
     */
    JsonWriter name(String name) {
        if (objects.isEmpty() || !objects.peek() || afterName) {
            throw new IllegalStateException("a name belongs inside an object, before a value: " + name);
        }
        separate();
        string(name);
        sb.append(": ");
        afterName = true;
        return this;
    }

    /**
     * @param v a string, or null
     * @return this writer
     */
    JsonWriter value(String v) {
        beforeValue();
        if (v == null) {
            sb.append("null");
        } else {
            string(v);
        }
        return this;
    }

    /**
     * @param v a whole number
     * @return this writer
     */
    JsonWriter value(long v) {
        beforeValue();
        sb.append(v);
        return this;
    }

    /**
     * @param v a number
     * @param decimals digits after the point
     * @return this writer
     */
    JsonWriter value(double v, int decimals) {
        beforeValue();
        sb.append(Double.isFinite(v) ? String.format(Locale.ROOT, "%." + decimals + "f", v) : "null");
        return this;
    }

    /**
     * @param v a boolean
     * @return this writer
     */
    JsonWriter value(boolean v) {
        beforeValue();
        sb.append(v);
        return this;
    }

    /**
     * @return the document
     * @throws IllegalStateException if a container is still open
     */
    String toJson() {
        if (!empty.isEmpty()) {
            throw new IllegalStateException("JSON document has " + empty.size() + " unclosed containers");
        }
        return sb.toString() + System.lineSeparator();
    }

    private JsonWriter open(char c, boolean object) {
        beforeValue();
        sb.append(c);
        empty.push(true);
        objects.push(object);
        return this;
    }

    private JsonWriter close(char c, boolean object) {
        if (objects.isEmpty() || objects.peek() != object || afterName) {
            throw new IllegalStateException("cannot close '" + c + "' here");
        }
        objects.pop();
        if (!empty.pop()) {
            newline();
        }
        sb.append(c);
        return this;
    }

    private void beforeValue() {
        if (afterName) {
            afterName = false;
            return;
        }
        if (!objects.isEmpty() && objects.peek()) {
            throw new IllegalStateException("a value inside an object needs a name first");
        }
        if (!objects.isEmpty()) {
            separate();
        } else if (sb.length() > 0) {
            throw new IllegalStateException("a JSON document has one top-level value");
        }
    }

    private void separate() {
        if (!empty.peek()) {
            sb.append(',');
        }
        empty.pop();
        empty.push(false);
        newline();
    }

    private void newline() {
        sb.append('\n').append("  ".repeat(empty.size()));
    }

    private void string(String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (ch < 0x20) {
                        sb.append(String.format(Locale.ROOT, "\\u%04x", (int) ch));
                    } else {
                        sb.append(ch);
                    }
                }
            }
        }
        sb.append('"');
    }
}
