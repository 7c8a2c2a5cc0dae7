package io.rvt.api;

/**
 * Path MTU, with the numeric values of {@code enum ib_mtu} (and the two OPA extensions).
 */
public enum PathMtu {
    /** 256 bytes. */
    MTU_256(1, 256),
    /** 512 bytes. */
    MTU_512(2, 512),
    /** 1024 bytes. */
    MTU_1024(3, 1024),
    /** 2048 bytes. */
    MTU_2048(4, 2048),
    /** 4096 bytes. */
    MTU_4096(5, 4096),
    /** 8192 bytes (OPA). */
    MTU_8192(6, 8192),
    /** 10240 bytes (OPA). */
    MTU_10240(7, 10240);

    private final int value;
    private final int bytes;

    PathMtu(int value, int bytes) {
        this.value = value;
        this.bytes = bytes;
    }

    /** @return the {@code ib_mtu} value */
    public int value() {
        return value;
    }

    /** @return the MTU in bytes */
    public int bytes() {
        return bytes;
    }

    /**
     * @param value an {@code ib_mtu} value
     * @return the MTU
     * @throws IllegalArgumentException if no MTU has that value
     */
    public static PathMtu of(int value) {
        if (value < 1 || value > 7) {
            throw new IllegalArgumentException("unknown path MTU value: " + value);
        }
        return values()[value - 1];
    }

    /**
     * @param bytes an MTU in bytes
     * @return the MTU with exactly that size
     * @throws IllegalArgumentException if no MTU has that size
     */
    public static PathMtu ofBytes(int bytes) {
        for (PathMtu m : values()) {
            if (m.bytes == bytes) {
                return m;
            }
        }
        throw new IllegalArgumentException("no path MTU of " + bytes + " bytes");
    }
}
