package io.rvt.launcher;

import java.util.Locale;

/**
 * Who runs the network between the HCAs ({@code --threading}), in rvt's one threading vocabulary: the engines' modes
 * of {@link io.rvt.api.spi.agent.ThreadingMode} ({@code progress}, {@code dedicated}, {@code invoker}) and Aeron's
 * {@code shared}, the same words as driver-sim's and driver-jni's Config Admin property {@code threading}. By default
 * the progress hook, through which the command's polls run it, with a backstop thread for when they stop; as
 * overrides, threads of its own, one thread for all, or only the command's thread. On a small machine the polling
 * thread is several times faster than a network thread: a cache line handed between two cores costs more than the
 * work of a packet.
 */
public enum Threading {
    /**
     * The default, in Felix as with {@code --no-osgi}: an empty poll runs the fabric and both HCAs' send engines
     * (rvt-core's progress hook into driver-sim), or driver-jni's port engines, and a backstop thread does when no
     * poll has for a while.
     */
    PROGRESS,
    /**
     * Threads of the network's own: driver-sim's fabric and each HCA's send engine on one each (a deterministic
     * fabric: its event loop's one thread), driver-jni's ports on one each.
     */
    DEDICATED,
    /**
     * Aeron's shared mode: one network thread runs the real-time fabric's delivery agent and both HCAs' send agents
     * (each built {@link io.rvt.api.spi.agent.ThreadingMode#INVOKER}).
     */
    SHARED,
    /** No network thread: the command's thread runs those agents while it waits for a completion. */
    INVOKER;

    /**
     * The spelling {@code --threading} had before the vocabulary was one: {@code network}, "the network's own
     * threads", which is {@link #SHARED} on a real-time simulated fabric and {@link #DEDICATED} elsewhere
     * ({@link Options} resolves it once the driver and the time mode are known, with a deprecation line).
     */
    static final String DEPRECATED_NETWORK = "network";

    /** @return how perf's test-info block names it, e.g. {@code invoker (the command's thread)} */
    public String describe() {
        return option() + switch (this) {
            case PROGRESS -> " (the command's polls, a backstop thread when they stop)";
            case DEDICATED -> " (the network's own threads)";
            case SHARED -> " (one network thread)";
            case INVOKER -> " (the command's thread)";
        };
    }

    /** @return the value of {@code --threading} that chooses it */
    public String option() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** @return true if threads of the network's own run it without the command ({@link #DEDICATED}, {@link #SHARED}) */
    public boolean ownThreads() {
        return this == DEDICATED || this == SHARED;
    }

    /**
     * @param v {@code progress}, {@code dedicated}, {@code shared} or {@code invoker}
     * @return the threading
     * @throws UsageException for anything else ({@link #DEPRECATED_NETWORK} is {@link Options}'s to resolve)
     */
    public static Threading parse(String v) {
        for (Threading t : values()) {
            if (t.option().equals(v)) {
                return t;
            }
        }
        throw new UsageException("option --threading: unknown threading '" + v
                + "' (progress, dedicated, shared or invoker)");
    }
}
