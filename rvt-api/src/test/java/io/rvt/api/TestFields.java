package io.rvt.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** Reflection helpers for "copies every field" checks, so that a field added later is covered automatically. */
public final class TestFields {
    private TestFields() {
    }

    /** @return the non-static fields declared by {@code type} */
    public static List<Field> instanceFields(Class<?> type) {
        List<Field> out = new ArrayList<>();
        for (Field f : type.getDeclaredFields()) {
            if (!Modifier.isStatic(f.getModifiers()) && !f.isSynthetic()) {
                f.setAccessible(true);
                out.add(f);
            }
        }
        return out;
    }

    /** @return the value of {@code f} in {@code o} */
    public static Object get(Field f, Object o) {
        try {
            return f.get(o);
        } catch (IllegalAccessException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * Asserts that every instance field of {@code actual} equals the same field of {@code expected}
     * ({@link Objects#equals}).
     */
    public static void assertSameFieldValues(Object expected, Object actual) {
        for (Field f : instanceFields(expected.getClass())) {
            assertThat(get(f, actual)).as("field %s", f.getName()).isEqualTo(get(f, expected));
        }
    }

    /**
     * Asserts that every instance field of {@code o} differs from the same field of {@code fresh} (a freshly
     * constructed instance), so that a copy test with {@code o} as source really exercises each field.
     */
    public static void assertEveryFieldDiffers(Object fresh, Object o) {
        for (Field f : instanceFields(o.getClass())) {
            assertThat(Objects.equals(get(f, fresh), get(f, o)))
                    .as("test setup must give field %s a non-default value", f.getName()).isFalse();
        }
    }
}
