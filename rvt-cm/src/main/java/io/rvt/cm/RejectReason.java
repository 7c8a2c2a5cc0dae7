package io.rvt.cm;

/**
 * The reason of a REJ, numbered as IBTA vol 1 table 108 ("REJ Message Contents", reasons of ch 12.6.7.2) and the
 * kernel's {@code enum ib_cm_rej_reason}.
 */
public enum RejectReason {
    /** No QP available. */
    NO_QP(1),
    /** No EE context available. */
    NO_EEC(2),
    /** No resources available. */
    NO_RESOURCES(3),
    /** Timeout: the REJ that ends a connection attempt whose MADs were retried too often. */
    TIMEOUT(4),
    /** Unsupported request. */
    UNSUPPORTED(5),
    /** Invalid communication ID: a MAD for an ID that does not exist. */
    INVALID_COMM_ID(6),
    /** Invalid communication instance. */
    INVALID_COMM_INSTANCE(7),
    /** Invalid service ID: nobody listens on the REQ's service ID ("no listener"). */
    INVALID_SERVICE_ID(8),
    /** Invalid transport service type. */
    INVALID_TRANSPORT_TYPE(9),
    /** Stale connection: the REQ's or REP's QP is still part of an older connection. */
    STALE_CONN(10),
    /** RDC does not exist. */
    RDC_NOT_EXIST(11),
    /** Primary remote port GID rejected. */
    INVALID_GID(12),
    /** Primary remote port LID rejected. */
    INVALID_LID(13),
    /** Primary path SL rejected. */
    INVALID_SL(14),
    /** Primary path traffic class rejected. */
    INVALID_TRAFFIC_CLASS(15),
    /** Primary path hop limit rejected. */
    INVALID_HOP_LIMIT(16),
    /** Primary path packet rate rejected. */
    INVALID_PACKET_RATE(17),
    /** Alternate remote port GID rejected. */
    INVALID_ALT_GID(18),
    /** Alternate remote port LID rejected. */
    INVALID_ALT_LID(19),
    /** Alternate path SL rejected. */
    INVALID_ALT_SL(20),
    /** Alternate path traffic class rejected. */
    INVALID_ALT_TRAFFIC_CLASS(21),
    /** Alternate path hop limit rejected. */
    INVALID_ALT_HOP_LIMIT(22),
    /** Alternate path packet rate rejected. */
    INVALID_ALT_PACKET_RATE(23),
    /** Port CM redirection. */
    PORT_CM_REDIRECT(24),
    /** Port redirection. */
    PORT_REDIRECT(25),
    /** Invalid path MTU: the passive side cannot take the REQ's MTU (the ARI holds the MTU it can take). */
    INVALID_MTU(26),
    /** Insufficient responder resources. */
    INSUFFICIENT_RESP_RESOURCES(27),
    /** Consumer reject: the application refused; its private data tells why. */
    CONSUMER_DEFINED(28),
    /** Invalid RNR retry count. */
    INVALID_RNR_RETRY(29),
    /** Duplicate local communication ID. */
    DUPLICATE_LOCAL_COMM_ID(30),
    /** Unsupported class version. */
    INVALID_CLASS_VERSION(31),
    /** Invalid primary flow label. */
    INVALID_FLOW_LABEL(32),
    /** Invalid alternate flow label. */
    INVALID_ALT_FLOW_LABEL(33),
    /** Vendor option not supported ({@code IB_CM_REJ_VENDOR_OPTION_NOT_SUPPORTED}). */
    VENDOR_OPTION_NOT_SUPPORTED(35);

    private final int code;

    RejectReason(int code) {
        this.code = code;
    }

    /** @return the IBTA reason number carried in the REJ's 16-bit Reason field */
    public int code() {
        return code;
    }

    /**
     * @param code a REJ reason number
     * @return the reason, or null if the number is not one IBTA defines
     */
    public static RejectReason of(int code) {
        for (RejectReason r : values()) {
            if (r.code == code) {
                return r;
            }
        }
        return null;
    }
}
