package io.rvt.api;

/** Argument checks shared by the mutable value classes; messages name the field and the value. */
final class Checks {
    private Checks() {
    }

    static int range(String field, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(field + " must be in [" + min + ", " + max + "], got " + value);
        }
        return value;
    }

    static int u8(String field, int value) {
        return range(field, value, 0, 0xFF);
    }

    static int u16(String field, int value) {
        return range(field, value, 0, 0xFFFF);
    }

    static int u24(String field, int value) {
        return range(field, value, 0, 0xFFFFFF);
    }

    static int nonNegative(String field, int value) {
        return range(field, value, 0, Integer.MAX_VALUE);
    }

    static <T> T notNull(String field, T value) {
        if (value == null) {
            throw new IllegalArgumentException(field + " must not be null");
        }
        return value;
    }
}
