package io.rvt.launcher;

import java.util.Locale;

/**
 * Who runs the simulated network ({@code --threading}): by default the progress hook, through which the command's
 * polls run it, with a backstop thread for when they stop; as overrides, a thread of its own, or only the command's
 * thread (Aeron's invoker mode). On a small machine the polling thread is several times faster than a network thread:
 * a cache line handed between two cores costs more than the work of a packet.
 */
public enum Threading {
    /**
     * The default, in Felix as with {@code --no-osgi}: an empty poll runs the fabric and both HCAs' send engines
     * (rvt-core's progress hook into driver-sim), and a backstop thread does when no poll has for a while.
     */
    PROGRESS,
    /** One network thread runs the fabric's delivery agent and both HCAs' send agents. */
    NETWORK,
    /** No network thread: the command's thread runs those agents while it waits for a completion. */
    INVOKER;

    /** @return how perf's test-info block names it, e.g. {@code invoker (the command's thread)} */
    public String describe() {
        return option() + (this == INVOKER ? " (the command's thread)" : this == PROGRESS
                ? " (the command's polls, a backstop thread when they stop)" : " (the network's own threads)");
    }

    /** @return the value of {@code --threading} that chooses it */
    public String option() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param v {@code network} or {@code invoker}
     * @return the threading
     * @throws UsageException for anything else
     */
    public static Threading parse(String v) {
        for (Threading t : values()) {
            if (t.option().equals(v)) {
                return t;
            }
        }
        throw new UsageException("option --threading: unknown threading '" + v + "' (progress, network or invoker)");
    }
}
