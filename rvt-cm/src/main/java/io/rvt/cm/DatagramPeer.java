package io.rvt.cm;

import io.rvt.api.AhAttr;
import io.rvt.api.Gid;

/**
 * A UD service found by SIDR (IBTA 12.11: SIDR_REQ / SIDR_REP): the remote UD QP number, its Q_Key and its port's
 * address, to send to with an address handle. Immutable.
 */
public final class DatagramPeer {
    private final Gid gid;
    private final int lid;
    private final int qpn;
    private final int qkey;
    private final long serviceId;
    private final byte[] privateData;

    /**
     * @param gid the remote port's GID
     * @param lid the remote port's LID (0 on RoCE)
     * @param qpn the remote UD QP number
     * @param qkey its Q_Key
     * @param serviceId the service ID that was resolved
     * @param privateData the SIDR_REP's private data
     */
    public DatagramPeer(Gid gid, int lid, int qpn, int qkey, long serviceId, byte[] privateData) {
        this.gid = gid;
        this.lid = lid;
        this.qpn = qpn;
        this.qkey = qkey;
        this.serviceId = serviceId;
        this.privateData = privateData == null ? new byte[0] : privateData.clone();
    }

    /** @return the remote port's GID */
    public Gid gid() {
        return gid;
    }

    /** @return the remote port's LID (0 on RoCE) */
    public int lid() {
        return lid;
    }

    /** @return the remote UD QP number (a send WR's {@code remoteQpn}) */
    public int qpn() {
        return qpn;
    }

    /** @return the remote QP's Q_Key (a send WR's {@code remoteQkey}) */
    public int qkey() {
        return qkey;
    }

    /** @return the service ID that was resolved */
    public long serviceId() {
        return serviceId;
    }

    /** @return a copy of the SIDR_REP's private data */
    public byte[] privateData() {
        return privateData.clone();
    }

    /**
     * Fills an address-handle attribute for the peer: global (GRH to {@link #gid()}), its LID, the given local port.
     *
     * @param out filled in place
     * @param hcaPort the local HCA port
     * @return {@code out}
     */
    public AhAttr address(AhAttr out, int hcaPort) {
        return out.clear().dlid(lid).portNum(hcaPort).global(true).dgid(gid).hopLimit(64);
    }

    @Override
    public String toString() {
        return "DatagramPeer[gid=" + gid + ", lid=" + lid + ", qpn=0x" + Integer.toHexString(qpn) + ", qkey=0x"
                + Integer.toHexString(qkey) + "]";
    }
}
