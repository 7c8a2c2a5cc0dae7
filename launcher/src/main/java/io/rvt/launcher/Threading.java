package io.rvt.launcher;

import java.util.Locale;

/**
 * Who runs the simulated network ({@code --threading}): a thread of its own, or the command's thread whenever it finds
 * a completion queue empty (Aeron's invoker mode). On a small machine the second is several times faster: a cache
 * line handed between two cores costs more than the work of a packet.
 */
public enum Threading {
    /** One network thread runs the fabric's delivery agent and both HCAs' send agents (the default). */
    NETWORK,
    /** No network thread: the command's thread runs those agents while it waits for a completion. */
    INVOKER;

    /** @return how perf's test-info block names it, e.g. {@code invoker (the command's thread)} */
    public String describe() {
        return option() + (this == INVOKER ? " (the command's thread)" : " (the network's own threads)");
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
        throw new UsageException("option --threading: unknown threading '" + v + "' (network or invoker)");
    }
}
