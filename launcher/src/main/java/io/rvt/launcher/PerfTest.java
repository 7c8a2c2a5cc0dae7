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
     * @param v {@code send}, {@code write}, {@code read} or {@code atomic} (any case)
     * @return the test
     * @throws UsageException for anything else
     */
    public static PerfTest parse(String v) {
        for (PerfTest t : values()) {
            if (t.option().equalsIgnoreCase(v)) {
                return t;
            }
        }
        throw new UsageException("option --test: unknown test '" + v + "' (send, write, read or atomic)");
    }
}
