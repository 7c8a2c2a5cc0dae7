package io.rvt.launcher;

import io.rvt.api.PortCounter;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * The driver the launcher's two HCAs run on ({@code --driver}), and what that means for how results are labelled:
 * driver-sim's HCAs are simulated InfiniBand on an in-JVM fabric, driver-jni's are RoCEv2 (Ethernet link layer) over
 * real UDP sockets.
 */
enum DriverKind {
    /** driver-sim: simulated HCAs on an in-JVM fabric with seeded faults. */
    SIM(true, "InfiniBand", "IB", "fabric", EnumSet.of(PortCounter.RX_ADDR_MISMATCH, PortCounter.RX_MCAST_NO_GROUP,
            PortCounter.RX_UD_OVERSIZE, PortCounter.RX_KERNEL_DROPS, PortCounter.RX_IPV4_ID_SOLVED),
            "driver-sim has no IP addresses, no RoCE receive checks and no kernel sockets"),
    /** driver-jni: RoCEv2 HCAs over real UDP sockets (loopback, for the launcher). */
    JNI(false, "Ethernet", "Ethernet", "network", EnumSet.noneOf(PortCounter.class), "");

    private final boolean simulated;
    private final Set<PortCounter> unseen;
    private final String whyUnseen;
    private final String linkLayer;
    private final String perftestLinkType;
    private final String networkLabel;

    DriverKind(boolean simulated, String linkLayer, String perftestLinkType, String networkLabel,
            Set<PortCounter> unseen, String whyUnseen) {
        this.unseen = Collections.unmodifiableSet(unseen);
        this.whyUnseen = whyUnseen;
        this.simulated = simulated;
        this.linkLayer = linkLayer;
        this.perftestLinkType = perftestLinkType;
        this.networkLabel = networkLabel;
    }

    /**
     * @param v the value of {@code --driver}
     * @return the driver
     * @throws UsageException if there is no such driver
     */
    static DriverKind parse(String v) {
        for (DriverKind k : values()) {
            if (k.option().equals(v)) {
                return k;
            }
        }
        throw new UsageException("option --driver: unknown driver '" + v + "' (sim or jni)");
    }

    /** @return the value of {@code --driver} that chooses it */
    String option() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** @return whether its devices are simulated (figures measured on them say so) */
    boolean simulated() {
        return simulated;
    }

    /** @return the link layer as ibv_devinfo names it ({@code InfiniBand}, {@code Ethernet}) */
    String linkLayer() {
        return linkLayer;
    }

    /** @return the link type as perftest names it ({@code IB}, {@code Ethernet}) */
    String perftestLinkType() {
        return perftestLinkType;
    }

    /** @return the port counters this driver never counts (its host cannot see what they name): stat shows "-" */
    Set<PortCounter> unseenCounters() {
        return unseen;
    }

    /** @return why {@link #unseenCounters()} are not seen, or empty */
    String whyUnseen() {
        return whyUnseen;
    }

    /** @return what {@code rvt stat} calls the network between the HCAs ({@code fabric}, {@code network}) */
    String networkLabel() {
        return networkLabel;
    }
}
