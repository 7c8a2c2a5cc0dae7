package io.rvt.launcher;

import io.rvt.api.WrOpcode;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * The operations {@code rvt perf} measures ({@code --test}), as perftest's {@code ib_send_*}, {@code ib_write_*},
 * {@code ib_read_*} and {@code ib_atomic_*}, with the transports each allows.
 */
public enum PerfTest {
    /** SEND to posted receives: RC, UC, UD. */
    SEND("Send", WrOpcode.SEND, EnumSet.allOf(Transport.class)),
    /** RDMA WRITE: RC, UC. */
    WRITE("RDMA_Write", WrOpcode.RDMA_WRITE, EnumSet.of(Transport.RC, Transport.UC)),
    /** RDMA READ: RC. */
    READ("RDMA_Read", WrOpcode.RDMA_READ, EnumSet.of(Transport.RC)),
    /** 8-byte FETCH_AND_ADD: RC. */
    ATOMIC("Atomic", WrOpcode.ATOMIC_FETCH_AND_ADD, EnumSet.of(Transport.RC));

    /** The size of an atomic operation's operand. */
    public static final int ATOMIC_SIZE = 8;

    private final String perftestName;
    private final WrOpcode opcode;
    private final Set<Transport> transports;

    PerfTest(String perftestName, WrOpcode opcode, Set<Transport> transports) {
        this.perftestName = perftestName;
        this.opcode = opcode;
        this.transports = transports;
    }

    /** @return perftest's name of the verb, as in its JSON {@code test} field ({@code Send}, {@code RDMA_Write}) */
    public String perftestName() {
        return perftestName;
    }

    /** @return the work request opcode */
    public WrOpcode opcode() {
        return opcode;
    }

    /**
     * @param t a transport
     * @return true if this test runs over it
     */
    public boolean allows(Transport t) {
        return transports.contains(t);
    }

    /** @return the lower-case name used on the command line */
    public String option() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** @return true if the responder posts receives (only SEND) */
    public boolean needsReceives() {
        return this == SEND;
    }

    /**
     * @param v {@code send}, {@code write}, {@code read} or {@code atomic}, or perftest's program name for one of
     *          them ({@code ib_send_bw}, {@code write_lat}, ...), any case
     * @return the test
     * @throws UsageException for anything else
     */
    public static PerfTest parse(String v) {
        String verb = perftestName(v) ? v.toLowerCase(Locale.ROOT).replaceFirst("^ib_", "").replaceFirst("_(bw|lat)$",
                "") : v;
        for (PerfTest t : values()) {
            if (t.option().equalsIgnoreCase(verb)) {
                return t;
            }
        }
        throw new UsageException("option --test: unknown test '" + v + "' (send, write, read or atomic; or "
                + "perftest's ib_send_bw, ib_write_lat, ...)");
    }

    /**
     * @param v a value of {@code --test}
     * @return for a perftest program name, whether it names a latency test ({@code _lat}); else null
     */
    public static Boolean latencyOf(String v) {
        return perftestName(v) ? v.toLowerCase(Locale.ROOT).endsWith("_lat") : null;
    }

    private static boolean perftestName(String v) {
        return v.toLowerCase(Locale.ROOT).matches("(ib_)?[a-z]+_(bw|lat)");
    }
}
