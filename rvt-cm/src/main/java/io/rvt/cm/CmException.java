package io.rvt.cm;

import io.rvt.api.Errno;
import io.rvt.api.Gid;
import io.rvt.api.VerbsException;

/**
 * A connection-management error: the errno librdmacm would report ({@link Errno#ETIMEDOUT} after the retries,
 * {@link Errno#ECONNREFUSED} for a REJ, {@link Errno#EADDRINUSE} for a port already listened on,
 * {@link Errno#ECONNRESET} for a connection the peer ended or found stale, {@link Errno#EINVAL} for bad options,
 * {@link Errno#ENODEV} once the device is gone) and, when a REJ caused it, the IBTA reject reason and the REJ's
 * private data. The message names the peer, the port, the service ID and the reason.
 */
public class CmException extends VerbsException {
    private static final long serialVersionUID = 1L;

    /** The remote GID (not serialised). */
    private final transient Gid peer;
    /** The CM port. */
    private final int port;
    /** The service ID. */
    private final long serviceId;
    /** The REJ's reason, or null. */
    private final RejectReason rejectReason;
    /** The REJ's private data. */
    private final byte[] rejectPrivateData;
    /** Retransmissions before giving up. */
    private final int retries;

    /**
     * @param errno the errno
     * @param message what happened (the peer, port and service ID are appended)
     * @param peer the remote GID, or null if there is none (e.g. a listen error)
     * @param port the CM port
     * @param serviceId the service ID
     * @param rejectReason the REJ's reason, or null when no REJ caused the error
     * @param rejectPrivateData the REJ's private data (empty when none)
     * @param retries how many times the last MAD was resent before giving up (0 if it was not a timeout)
     */
    public CmException(Errno errno, String message, Gid peer, int port, long serviceId, RejectReason rejectReason,
            byte[] rejectPrivateData, int retries) {
        super(errno, message + " (peer " + peer + ", port " + port + ", service ID 0x"
                + String.format("%016x", serviceId) + (rejectReason != null ? ", reject reason " + rejectReason
                + " (" + rejectReason.code() + ")" : "") + ")");
        this.peer = peer;
        this.port = port;
        this.serviceId = serviceId;
        this.rejectReason = rejectReason;
        this.rejectPrivateData = rejectPrivateData == null ? new byte[0] : rejectPrivateData.clone();
        this.retries = retries;
    }

    /** @return the remote port's GID, or null */
    public Gid peer() {
        return peer;
    }

    /** @return the CM port */
    public int port() {
        return port;
    }

    /** @return the service ID */
    public long serviceId() {
        return serviceId;
    }

    /** @return the REJ's reason, or null when no REJ caused this error */
    public RejectReason rejectReason() {
        return rejectReason;
    }

    /** @return a copy of the REJ's private data (empty when none) */
    public byte[] rejectPrivateData() {
        return rejectPrivateData.clone();
    }

    /** @return how many times the last MAD was retransmitted before the CM gave up (0 unless timed out) */
    public int retries() {
        return retries;
    }
}
