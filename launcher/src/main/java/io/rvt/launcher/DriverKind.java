package io.rvt.launcher;

import java.util.Locale;

/**
 * The driver the launcher's two HCAs run on ({@code --driver}), and what that means for how results are labelled:
 * driver-sim's HCAs are simulated InfiniBand on an in-JVM fabric, driver-jni's are RoCEv2 (Ethernet link layer) over
 * real UDP sockets.
 */
enum DriverKind {
    /** driver-sim: simulated HCAs on an in-JVM fabric with seeded faults. */
    SIM(true, "InfiniBand", "IB", "fabric"),
    /** driver-jni: RoCEv2 HCAs over real UDP sockets (loopback, for the launcher). */
    JNI(false, "Ethernet", "Ethernet", "network");

    private final boolean simulated;
    private final String linkLayer;
    private final String perftestLinkType;
    private final String networkLabel;

    DriverKind(boolean simulated, String linkLayer, String perftestLinkType, String networkLabel) {
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

    /** @return what {@code rvt stat} calls the network between the HCAs ({@code fabric}, {@code network}) */
    String networkLabel() {
        return networkLabel;
    }
}
