package io.rvt.launcher;

import java.util.Locale;

/**
 * The simulated fabric the launcher asks for: seeded fault probabilities and the time mode.
 *
 * @param loss probability of losing a frame ({@code --loss})
 * @param duplication probability of delivering a frame twice ({@code --dup})
 * @param reorder probability of delaying a frame so that later ones overtake it ({@code --reorder})
 * @param seed the seed every fault draw derives from ({@code --seed})
 * @param deterministic virtual time on one event loop instead of real time ({@code --deterministic})
 * @param ports each HCA's ports: 1, or 2 for perftest's dual-port mode ({@code rvt perf -O})
 */
public record FabricOptions(double loss, double duplication, double reorder, long seed, boolean deterministic,
        int ports) {
    /**
     * HCAs of one port each.
     *
     * @param loss probability of losing a frame ({@code --loss})
     * @param duplication probability of delivering a frame twice ({@code --dup})
     * @param reorder probability of delaying a frame so that later ones overtake it ({@code --reorder})
     * @param seed the seed every fault draw derives from ({@code --seed})
     * @param deterministic virtual time on one event loop instead of real time ({@code --deterministic})
     */
    public FabricOptions(double loss, double duplication, double reorder, long seed, boolean deterministic) {
        this(loss, duplication, reorder, seed, deterministic, 1);
    }

    /** The longest extra delay of a reordered frame: 20 µs, several frames' time on an ideal link. */
    public static final long MAX_REORDER_DELAY_NANOS = 20_000;

    /** @return true if any fault is asked for */
    public boolean hasFaults() {
        return loss > 0 || duplication > 0 || reorder > 0;
    }

    /** @return e.g. {@code real-time, no faults} or {@code deterministic (seed 7), loss 0.05, dup 0.01} */
    public String describe() {
        StringBuilder sb = new StringBuilder(deterministic ? "deterministic (virtual time, seed " + seed + ")"
                : "real-time");
        if (!hasFaults()) {
            return sb.append(", no faults").toString();
        }
        if (!deterministic) {
            sb.append(" (seed ").append(seed).append(')');
        }
        append(sb, "loss", loss);
        append(sb, "dup", duplication);
        append(sb, "reorder", reorder);
        return sb.toString();
    }

    private static void append(StringBuilder sb, String name, double p) {
        if (p > 0) {
            sb.append(", ").append(name).append(' ').append(String.format(Locale.ROOT, "%s", p));
        }
    }
}
