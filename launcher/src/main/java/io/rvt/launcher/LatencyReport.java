package io.rvt.launcher;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Locale;

/**
 * perftest's reporting variants of a latency row ({@code print_report_lat} in perftest_parameters.c): {@code -C}
 * ({@code --report-cycles}) gives every figure in ticks of the clock the samples were taken with instead of usec,
 * {@code -U} ({@code --report-unsorted}) lists every sample as taken before the row, {@code -H}
 * ({@code --report-histogram}) every sample sorted; a list is {@code "#, usec"} (or {@code cycles}) and one
 * {@code "i, value"} line per sample, then perftest's dashed line and the column header again.
 *
 * <p>perftest's ticks are the CPU's cycle counter ({@code get_cycles}, the TSC); Java reads none, and rvt's samples
 * are {@link System#nanoTime} differences, so rvt's ticks are nanoseconds: the figures {@code -C} prints are those of
 * a 1 GHz cycle counter, usec times 1000.
 *
 * @param cycles {@code -C}: figures in clock ticks (rvt: ns)
 * @param histogram {@code -H}: every sample, sorted, before the row
 * @param unsorted {@code -U}: every sample, in the order taken, before the row
 */
record LatencyReport(boolean cycles, boolean histogram, boolean unsorted) {
    /** perftest's default: usec, no list. */
    static final LatencyReport DEFAULT = new LatencyReport(false, false, false);

    /** The test-info line of {@code -C}: what a tick is. */
    static final String CYCLES_LINE = " Cycles          : System.nanoTime ticks (1 ns; Java reads no CPU cycle counter)";

    /** @return nanoseconds per unit printed: 1 for ticks, 1000 for usec */
    double nanosPerUnit() {
        return cycles ? 1 : 1000;
    }

    /** @return the unit a list names, perftest's {@code units} */
    String units() {
        return cycles ? "cycles" : "usec";
    }

    /** @return whether samples are listed before the row */
    boolean lists() {
        return histogram || unsorted;
    }

    /**
     * Appends perftest's list of samples.
     *
     * @param to where the list goes
     * @param samples times in ns
     * @param n how many
     * @param rttFactor 2 for half a round trip, 1 for whole operations
     */
    void list(StringBuilder to, long[] samples, int n, int rttFactor) {
        double per = nanosPerUnit() * rttFactor;
        to.append("#, ").append(units()).append(System.lineSeparator());
        for (int i = 0; i < n; i++) {
            to.append(i + 1).append(", ").append(g(samples[i] / per)).append(System.lineSeparator());
        }
    }

    /**
     * @param v a value
     * @return it as C's {@code "%g"}: six significant digits, trailing zeros dropped, an exponent below 1e-4 and
     *         from 1e6
     */
    static String g(double v) {
        if (v == 0 || !Double.isFinite(v)) {
            return v == 0 ? "0" : Double.toString(v);
        }
        BigDecimal b = new BigDecimal(v).round(new MathContext(6));
        int exp = b.precision() - b.scale() - 1;
        if (exp < -4 || exp >= 6) {
            String m = b.movePointLeft(exp).stripTrailingZeros().toPlainString();
            return String.format(Locale.ROOT, "%se%s%02d", m, exp < 0 ? "-" : "+", Math.abs(exp));
        }
        return b.stripTrailingZeros().toPlainString();
    }
}
