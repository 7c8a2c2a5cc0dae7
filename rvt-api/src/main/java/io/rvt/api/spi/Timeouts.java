package io.rvt.api.spi;

/**
 * Timeout arithmetic of rdmavt: the IBTA local ACK timeout ({@code rvt_timeout_to_jiffies}) and the RNR NAK timer
 * table ({@code rvt_rnr_tbl_to_usec}), in ticks of a configurable rate so that the results equal rdmavt's for the
 * same {@code HZ}.
 */
public final class Timeouts {
    private Timeouts() {
    }

    /** IBTA RNR NAK timer codes 0..31 in microseconds ({@code ib_rvt_rnr_table}). */
    private static final int[] RNR_TABLE_US = {
        655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920,
        2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520
    };

    /**
     * {@code usecs_to_jiffies}: microseconds to ticks, rounded up.
     *
     * @param usecs microseconds, at least 0
     * @param hz ticks per second
     * @return ticks
     */
    public static long usecsToTicks(long usecs, int hz) {
        return (usecs * hz + 999_999) / 1_000_000;
    }

    /**
     * Mirrors {@code rvt_timeout_to_jiffies}: the local ACK timeout code {@code t} (4.096 us * 2^t) in ticks,
     * computed as rdmavt does: clamp {@code t} to 31, round 2^t us up to whole ticks, then scale by 4096/1000 with
     * truncation. With HZ=1000: t=0..9 give 4, t=14 gives 69, t=20 gives 4296.
     *
     * @param t the timeout code (0..255; above 31 acts as 31)
     * @param hz ticks per second
     * @return ticks
     */
    public static long timeoutToTicks(int t, int hz) {
        int code = Math.min(t, 31);
        return usecsToTicks(1L << code, hz) * 4096 / 1000;
    }

    /**
     * Ticks to nanoseconds.
     *
     * @param ticks ticks
     * @param hz ticks per second
     * @return nanoseconds
     */
    public static long ticksToNanos(long ticks, int hz) {
        return ticks * (1_000_000_000L / hz);
    }

    /**
     * Mirrors {@code rvt_rnr_tbl_to_usec}: an RNR NAK timer code to microseconds (code 0 is the longest, 655.36 ms).
     *
     * @param code the code; only its low five bits are used
     * @return microseconds
     */
    public static int rnrTableToMicros(int code) {
        return RNR_TABLE_US[code & 0x1F];
    }
}
