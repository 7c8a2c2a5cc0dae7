package io.rvt.it.interop.tools;

import java.time.Duration;
import java.util.List;

/**
 * The options every rvt counterpart takes besides its Linux tool's: where its HCA lives and how long it may take.
 *
 * <ul>
 * <li>{@code --bind ADDR}: the IP address of the driver-jni HCA the tool runs on (UDP 4791), required when run as a
 * program;</li>
 * <li>{@code --mtu BYTES}: the HCA's port MTU (default: driver-jni's own);</li>
 * <li>{@code --ack-timeout CODE}: the RC ACK timeout of rvt's QP, 4.096 us x 2^CODE (default: what the Linux tool
 * sets on its own QP, or rdma_cm's 14 where the CM agrees on it). Not on the wire for the raw tools, so a slow peer
 * (rxe under TCG answers hundreds of milliseconds late at times) may get a longer one without changing the
 * protocol;</li>
 * <li>{@code --timeout SECONDS}: the most the whole run may take (default 120);</li>
 * <li>{@code --hold}: after a good result line, keep the HCA and its QPs until a line or the end of standard input, so
 * that the peer's last retransmission or ACK still finds them (the test releases it once the Linux side
 * finished).</li>
 * </ul>
 *
 * @param bind the HCA's address, or null
 * @param mtu the HCA's port MTU in bytes, or 0 for the driver's default
 * @param ackTimeout rvt's RC ACK timeout code, or -1 for the tool's own
 * @param timeout the whole run's deadline
 * @param hold whether to wait on standard input after the result
 */
record CommonOptions(String bind, int mtu, int ackTimeout, Duration timeout, boolean hold) {
    /** The options' names. */
    static final List<String> NAMES = List.of("bind", "mtu", "ack-timeout", "timeout", "hold");

    /**
     * @param a a parsed command line
     * @return its rvt options
     */
    static CommonOptions of(ToolArgs a) {
        int ack = a.longInteger("ack-timeout", -1);
        if (ack < -1 || ack > 31) {
            throw new IllegalArgumentException(a.tool() + ": option --ack-timeout: " + ack + " is no ACK timeout "
                    + "code (0..31)");
        }
        int seconds = a.longInteger("timeout", 120);
        if (seconds <= 0) {
            throw new IllegalArgumentException(a.tool() + ": option --timeout: " + seconds + " s is not positive");
        }
        return new CommonOptions(a.longOpt("bind"), a.longInteger("mtu", 0), ack, Duration.ofSeconds(seconds),
                a.longOpt("hold") != null);
    }

    /**
     * @param name an option's name
     * @return true if it is one of these
     */
    static boolean isKnown(String name) {
        return NAMES.contains(name);
    }

    /**
     * @param name an option's name
     * @return true if it takes no value
     */
    static boolean isFlag(String name) {
        return name.equals("hold");
    }

    /**
     * @param toolDefault the ACK timeout code the Linux tool (or the CM) uses
     * @return the code rvt's QP uses
     */
    int ackTimeoutOr(int toolDefault) {
        return ackTimeout >= 0 ? ackTimeout : toolDefault;
    }
}
