package io.rvt.core;

import io.rvt.api.Errno;
import io.rvt.api.VerbsException;
import io.rvt.core.base.Errors;
import java.util.BitSet;
import java.util.Collection;

/**
 * How a device gets its name, as ib_core's {@code assign_name} does for {@code ib_register_device}: a driver's name
 * that contains {@value #INDEX} is a pattern, and the device takes the lowest index that no device of that pattern
 * has ({@code alloc_name}: {@code sim%d} gives {@code sim0}, then {@code sim1}; once {@code sim0} is gone the next
 * one is {@code sim0} again); any other name is taken as it is, and a name that a device has already fails with
 * {@code ENFILE}. No counter is involved, so the same drivers registered in the same order get the same names.
 */
final class DeviceNames {
    /** The index placeholder of a name pattern ({@code "%d"}, as in {@code ib_register_device}'s name). */
    static final String INDEX = "%d";
    /** {@code IB_DEVICE_NAME_MAX} less its terminating NUL. */
    static final int MAX_LENGTH = 63;

    private DeviceNames() {
    }

    /**
     * @param requested the driver's name: a fixed name or a pattern with one {@value #INDEX}
     * @param taken     the names of the devices that exist now
     * @return the device's name
     * @throws VerbsException EINVAL if {@code requested} is not a usable name (blank, white space, a {@code /}, a
     *                        {@code %} other than one {@value #INDEX}, longer than {@value #MAX_LENGTH}); ENFILE if
     *                        the fixed name is taken
     */
    static String assign(String requested, Collection<String> taken) {
        check(requested);
        int at = requested.indexOf(INDEX);
        if (at < 0) {
            if (taken.contains(requested)) {
                throw new VerbsException(Errno.ENFILE, "device name '" + requested + "' is taken: another device "
                        + "has it (a driver gets a free name from a pattern such as 'sim%d', or one of its own)");
            }
            return requested;
        }
        String prefix = requested.substring(0, at);
        String suffix = requested.substring(at + INDEX.length());
        BitSet used = new BitSet();
        for (String t : taken) {
            int i = indexOf(t, prefix, suffix);
            if (i >= 0) {
                used.set(i);
            }
        }
        String name = prefix + used.nextClearBit(0) + suffix;
        if (name.length() > MAX_LENGTH) {
            throw Errors.inval("device name '" + name + "' is longer than " + MAX_LENGTH + " characters");
        }
        return name;
    }

    private static void check(String requested) {
        if (requested == null || requested.isBlank()) {
            throw Errors.inval("device name must be a non-empty name or pattern, got "
                    + (requested == null ? "null" : "'" + requested + "'"));
        }
        if (requested.length() > MAX_LENGTH) {
            throw Errors.inval("device name '" + requested + "' is longer than " + MAX_LENGTH + " characters");
        }
        for (int i = 0; i < requested.length(); i++) {
            char c = requested.charAt(i);
            if (Character.isWhitespace(c) || c == '/' || Character.isISOControl(c)) {
                throw Errors.inval("device name '" + requested + "' has a character a device name cannot have ("
                        + (c == '/' ? "'/'" : String.format("U+%04X", (int) c)) + ")");
            }
        }
        int first = requested.indexOf('%');
        if (first >= 0 && (!requested.startsWith(INDEX, first) || requested.indexOf('%', first + 1) >= 0)) {
            throw Errors.inval("device name '" + requested + "' may hold one '" + INDEX + "' (the index rvt picks)"
                    + " and no other '%'");
        }
    }

    /** @return the index of {@code name} in the pattern {@code prefix%dsuffix}, or -1 if it is not of it */
    private static int indexOf(String name, String prefix, String suffix) {
        int end = name.length() - suffix.length();
        if (end <= prefix.length() || !name.startsWith(prefix) || !name.endsWith(suffix)) {
            return -1;
        }
        String digits = name.substring(prefix.length(), end);
        if (digits.length() > 9 || (digits.length() > 1 && digits.charAt(0) == '0')) {
            return -1;
        }
        for (int i = 0; i < digits.length(); i++) {
            if (digits.charAt(i) < '0' || digits.charAt(i) > '9') {
                return -1;
            }
        }
        return Integer.parseInt(digits);
    }
}
