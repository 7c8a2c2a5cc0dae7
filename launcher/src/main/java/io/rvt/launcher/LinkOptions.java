package io.rvt.launcher;

import io.rvt.api.Device;
import io.rvt.api.PathMtu;
import io.rvt.api.PortAttr;

/**
 * Which port of a device a test runs on, how it addresses its peer and how long its RC QPs wait for an ACK:
 * perftest's and ibv_rc_pingpong's {@code -i} (port), {@code -m} (path MTU), {@code -x} (GID index: a global
 * address, a GRH, from that source GID) and perftest's {@code -u} (the QP's local ACK timeout).
 *
 * @param port the port number, from 1
 * @param mtu the path MTU in bytes, or 0 for the port's active MTU
 * @param gidIndex the source GID index of a global address, or -1 for the default (a LID where the port has one,
 *                 else GID 0)
 * @param qpTimeout the RC local ACK timeout code, 0 to 31: each try waits 4.096 us x 2^code (IBTA's {@code timeout}
 *                  QP attribute, ibv_modify_qp's {@code IBV_QP_TIMEOUT}); rvt-cm puts it in the REQ
 * @param retryCount the RC QPs' retry count and RNR retry count, 0 to 7 ({@code IBV_QP_RETRY_CNT},
 *                   {@code IBV_QP_RNR_RETRY}; perftest's {@code --retry_count}, which its rdma_cm {@code -R} puts in
 *                   {@code rdma_conn_param.retry_count} and {@code rnr_retry_count}); rvt-cm puts it in the REQ
 */
record LinkOptions(int port, int mtu, int gidIndex, int qpTimeout, int retryCount) {
    /** perftest's {@code DEF_RETRY_COUNT} and the launcher's retry count: 7 (an RNR retry count of 7 is forever). */
    static final int DEFAULT_RETRY_COUNT = 7;

    /**
     * The launcher's RC local ACK timeout code, perftest's default too: 4.096 us x 2^14 = 67 ms per try, 7 retries: a
     * 2-core machine busy with other work can starve the network thread for tens of milliseconds, which a shorter
     * timeout turns into spurious retransmissions (and, eight in a row, into a failed QP).
     */
    static final int DEFAULT_QP_TIMEOUT = 14;
    /** The largest local ACK timeout code (the field has 5 bits). */
    static final int MAX_QP_TIMEOUT = 31;
    /** Port 1, its active MTU, LIDs where there are any, the default ACK timeout. */
    static final LinkOptions DEFAULT = new LinkOptions(1, 0, -1);

    /**
     * @param port the port number, from 1
     * @param mtu the path MTU in bytes, or 0 for the port's active MTU
     * @param gidIndex the source GID index of a global address, or -1 for the default
     */
    LinkOptions(int port, int mtu, int gidIndex) {
        this(port, mtu, gidIndex, DEFAULT_QP_TIMEOUT);
    }

    /**
     * @param port the port number, from 1
     * @param mtu the path MTU in bytes, or 0 for the port's active MTU
     * @param gidIndex the source GID index of a global address, or -1 for the default
     * @param qpTimeout the RC local ACK timeout code
     */
    LinkOptions(int port, int mtu, int gidIndex, int qpTimeout) {
        this(port, mtu, gidIndex, qpTimeout, DEFAULT_RETRY_COUNT);
    }

    /**
     * @param code a local ACK timeout code
     * @return how long one try waits: 4.096 us x 2^code, in nanoseconds
     */
    static long timeoutNanos(int code) {
        return 4096L << code;
    }

    /**
     * A two-process server's check of its client's {@code -u}: the client's REQ carries its local ACK timeout, which
     * rvt-cm gives both sides' QPs (the IB CM's rule), so the two cannot each use their own as perftest's processes
     * (rdma_cm's {@code RDMA_OPTION_ID_ACK_TIMEOUT} on each side) do.
     *
     * @param asked the client's code
     * @param own the server's link options
     * @param given whether the server's command line gave {@code -u}
     * @return why the server refuses the client, or null if it does not (the server took no {@code -u}, or the same)
     */
    static String timeoutConflict(int asked, LinkOptions own, boolean given) {
        if (!given || asked == own.qpTimeout) {
            return null;
        }
        return "the client asks for -u " + asked + ", the server was started with -u " + own.qpTimeout
                + " (the client's REQ sets both QPs' ACK timeout)";
    }

    /**
     * Checks that the device has the port and the GID index.
     *
     * @param device a device the test runs on
     * @throws UsageException naming the option, the value and the device
     */
    void check(Device device) {
        int ports = device.portCount();
        if (port > ports) {
            throw new UsageException("option --ib-port: " + device.name() + " has no port " + port + " (it has "
                    + ports + ")");
        }
        int gids = device.queryPort(port, new PortAttr()).gidTblLen();
        if (gidIndex >= gids) {
            throw new UsageException("option --gid-index: " + device.name() + " port " + port + " has no GID "
                    + gidIndex + " (its table holds " + gids + ")");
        }
    }

    /**
     * @param device a device
     * @return the path MTU on it: {@link #mtu} if given and not above the port's active MTU, else the active MTU
     */
    PathMtu pathMtu(Device device) {
        PathMtu active = device.queryPort(port, new PortAttr()).activeMtu();
        return mtu > 0 && mtu < active.bytes() ? PathMtu.ofBytes(mtu) : active;
    }
}
