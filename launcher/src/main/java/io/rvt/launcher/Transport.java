package io.rvt.launcher;

import io.rvt.api.QpType;
import java.util.Locale;

/** The transport a command runs over: {@code --transport rc|uc|ud}. */
public enum Transport {
    /** Reliable connected: acknowledged, retransmitted, every operation. */
    RC(QpType.RC),
    /** Unreliable connected: SEND and RDMA WRITE, a lost packet loses its message. */
    UC(QpType.UC),
    /** Unreliable datagram: SEND of at most one MTU, through an address handle. */
    UD(QpType.UD);

    private final QpType qpType;

    Transport(QpType qpType) {
        this.qpType = qpType;
    }

    /** @return the QP type */
    public QpType qpType() {
        return qpType;
    }

    /** @return the lower-case name used on the command line */
    public String option() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param v {@code rc}, {@code uc} or {@code ud} (any case)
     * @return the transport
     * @throws UsageException for anything else
     */
    public static Transport parse(String v) {
        for (Transport t : values()) {
            if (t.option().equalsIgnoreCase(v)) {
                return t;
            }
        }
        throw new UsageException("option --transport: unknown transport '" + v + "' (rc, uc or ud)");
    }
}
