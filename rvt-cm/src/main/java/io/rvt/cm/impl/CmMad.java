package io.rvt.cm.impl;

import io.rvt.api.Gid;
import java.nio.ByteBuffer;

/**
 * One CM MAD (IBTA vol 1 ch 12.6, the message layouts of tables 106-120) decoded into fields, and its codec. A MAD is
 * 256 bytes: the 24-byte common MAD header (IBTA 13.4.2: base version 1, class 0x07 (CM), class version 2, method
 * SEND, status, transaction ID, attribute ID, attribute modifier) and the message. Field positions are given as in
 * the IBTA tables, byte offsets from the start of the message (after the MAD header) with bit fields from the most
 * significant bit of their byte. Mutable and reusable; not thread-safe.
 */
final class CmMad {
    static final int SIZE = 256;
    static final int HEADER = 24;
    static final int BASE_VERSION = 1;
    static final int MGMT_CLASS_CM = 0x07;
    static final int CLASS_VERSION = 2;
    static final int METHOD_SEND = 0x03;

    static final int REQ = 0x0010;
    static final int MRA = 0x0011;
    static final int REJ = 0x0012;
    static final int REP = 0x0013;
    static final int RTU = 0x0014;
    static final int DREQ = 0x0015;
    static final int DREP = 0x0016;
    static final int SIDR_REQ = 0x0017;
    static final int SIDR_REP = 0x0018;

    /** Transport service types of the REQ (table 106). */
    static final int TRANSPORT_RC = 0;
    static final int TRANSPORT_UC = 1;

    /** "Message MRAed" / "Message Rejected" values (tables 107, 108). */
    static final int MSG_REQ = 0;
    static final int MSG_REP = 1;
    static final int MSG_OTHER = 2;

    static final int REQ_PRIVATE = 92;
    static final int MRA_PRIVATE = 222;
    static final int REJ_PRIVATE = 148;
    static final int REJ_ARI = 72;
    static final int REP_PRIVATE = 196;
    static final int RTU_PRIVATE = 224;
    static final int DREQ_PRIVATE = 220;
    static final int DREP_PRIVATE = 224;
    static final int SIDR_REQ_PRIVATE = 216;
    static final int SIDR_REP_PRIVATE = 136;
    static final int SIDR_REP_INFO = 72;

    int attrId;
    long tid;
    int status;
    // common to the connection messages (SIDR: the request ID is localCommId)
    int localCommId;
    int remoteCommId;
    // REQ
    long serviceId;
    long localCaGuid;
    int localQkey;
    int localQpn;
    int responderResources;
    int initiatorDepth;
    int remoteCmResponseTimeout;
    int transportType;
    boolean e2eFlowControl;
    int startingPsn;
    int localCmResponseTimeout;
    int retryCount;
    int pkey;
    int pathMtu;
    int rnrRetryCount;
    int maxCmRetries;
    boolean srq;
    int primaryLocalLid;
    int primaryRemoteLid;
    Gid primaryLocalGid = Gid.ZERO;
    Gid primaryRemoteGid = Gid.ZERO;
    int flowLabel;
    int packetRate;
    int trafficClass;
    int hopLimit;
    int sl;
    boolean subnetLocal;
    int localAckTimeout;
    // MRA, REJ
    int messageCode;
    int serviceTimeout;
    int reason;
    final byte[] ari = new byte[REJ_ARI];
    int ariLength;
    // REP
    int targetAckDelay;
    int failoverAccepted;
    // DREQ, SIDR_REP
    int remoteQpn;
    // SIDR_REP
    int sidrStatus;
    int qkey;
    // private data of every message
    final byte[] privateData = new byte[MRA_PRIVATE + 2];
    int privateLength;

    /**
     * @return a copy of this MAD (through its wire form: only the fields of its message type survive)
     */
    CmMad copy() {
        ByteBuffer b = ByteBuffer.allocate(SIZE);
        encode(b, 0);
        CmMad c = new CmMad();
        c.decode(b, 0, SIZE);
        c.privateLength = privateLength;
        return c;
    }

    /** Clears every field. */
    CmMad clear() {
        attrId = 0;
        tid = 0;
        status = 0;
        localCommId = remoteCommId = 0;
        serviceId = localCaGuid = 0;
        localQkey = localQpn = responderResources = initiatorDepth = remoteCmResponseTimeout = transportType = 0;
        e2eFlowControl = false;
        startingPsn = localCmResponseTimeout = retryCount = pkey = pathMtu = rnrRetryCount = maxCmRetries = 0;
        srq = false;
        primaryLocalLid = primaryRemoteLid = 0;
        primaryLocalGid = primaryRemoteGid = Gid.ZERO;
        flowLabel = packetRate = trafficClass = hopLimit = sl = localAckTimeout = 0;
        subnetLocal = false;
        messageCode = serviceTimeout = reason = ariLength = 0;
        java.util.Arrays.fill(ari, (byte) 0);
        targetAckDelay = failoverAccepted = remoteQpn = sidrStatus = qkey = 0;
        java.util.Arrays.fill(privateData, (byte) 0);
        privateLength = 0;
        return this;
    }

    /**
     * @param data bytes to carry as private data (the rest of the field is zero)
     * @param off first byte
     * @param len how many
     * @return this
     */
    CmMad privateData(byte[] data, int off, int len) {
        System.arraycopy(data, off, privateData, privateLength, len);
        privateLength += len;
        return this;
    }

    /** @return the private data field's size for this message type */
    static int privateCapacity(int attrId) {
        switch (attrId) {
            case REQ:
                return REQ_PRIVATE;
            case MRA:
                return MRA_PRIVATE;
            case REJ:
                return REJ_PRIVATE;
            case REP:
                return REP_PRIVATE;
            case RTU:
                return RTU_PRIVATE;
            case DREQ:
                return DREQ_PRIVATE;
            case DREP:
                return DREP_PRIVATE;
            case SIDR_REQ:
                return SIDR_REQ_PRIVATE;
            case SIDR_REP:
                return SIDR_REP_PRIVATE;
            default:
                return 0;
        }
    }

    /** Byte offset of the private data in the whole MAD. */
    static int privateOffset(int attrId) {
        switch (attrId) {
            case REQ:
                return HEADER + 140;
            case MRA:
                return HEADER + 10;
            case REJ:
                return HEADER + 84;
            case REP:
                return HEADER + 36;
            case RTU:
            case DREP:
                return HEADER + 8;
            case DREQ:
                return HEADER + 12;
            case SIDR_REQ:
                return HEADER + 16;
            case SIDR_REP:
                return HEADER + 96;
            default:
                return SIZE;
        }
    }

    /** @return the message's name as Wireshark shows it */
    static String name(int attrId) {
        switch (attrId) {
            case REQ:
                return "ConnectRequest";
            case MRA:
                return "MsgRcptAck";
            case REJ:
                return "ConnectReject";
            case REP:
                return "ConnectReply";
            case RTU:
                return "ReadyToUse";
            case DREQ:
                return "DisconnectRequest";
            case DREP:
                return "DisconnectReply";
            case SIDR_REQ:
                return "ServiceIDResReq";
            case SIDR_REP:
                return "ServiceIDResReqResp";
            default:
                return "attr 0x" + Integer.toHexString(attrId);
        }
    }

    /**
     * Writes the MAD (all 256 bytes) at {@code off}.
     *
     * @param b the buffer (big-endian)
     * @param off first byte
     */
    void encode(ByteBuffer b, int off) {
        for (int i = 0; i < SIZE; i += 8) {
            b.putLong(off + i, 0);
        }
        b.put(off, (byte) BASE_VERSION);
        b.put(off + 1, (byte) MGMT_CLASS_CM);
        b.put(off + 2, (byte) CLASS_VERSION);
        b.put(off + 3, (byte) METHOD_SEND);
        b.putShort(off + 4, (short) status);
        b.putLong(off + 8, tid);
        b.putShort(off + 16, (short) attrId);
        int m = off + HEADER;
        switch (attrId) {
            case REQ:
                b.putInt(m, localCommId);
                b.putLong(m + 8, serviceId);
                b.putLong(m + 16, localCaGuid);
                b.putInt(m + 28, localQkey);
                b.putInt(m + 32, (localQpn << 8) | (responderResources & 0xFF));
                b.putInt(m + 36, initiatorDepth & 0xFF); // local EECN 0
                b.putInt(m + 40, ((remoteCmResponseTimeout & 0x1F) << 3) | ((transportType & 3) << 1)
                        | (e2eFlowControl ? 1 : 0)); // remote EECN 0
                b.putInt(m + 44, (startingPsn << 8) | ((localCmResponseTimeout & 0x1F) << 3) | (retryCount & 7));
                b.putShort(m + 48, (short) pkey);
                b.put(m + 50, (byte) (((pathMtu & 0xF) << 4) | (rnrRetryCount & 7)));
                b.put(m + 51, (byte) (((maxCmRetries & 0xF) << 4) | (srq ? 8 : 0)));
                b.putShort(m + 52, (short) primaryLocalLid);
                b.putShort(m + 54, (short) primaryRemoteLid);
                primaryLocalGid.write(b, m + 56);
                primaryRemoteGid.write(b, m + 72);
                b.putInt(m + 88, ((flowLabel & 0xF_FFFF) << 12) | (packetRate & 0x3F));
                b.put(m + 92, (byte) trafficClass);
                b.put(m + 93, (byte) hopLimit);
                b.put(m + 94, (byte) (((sl & 0xF) << 4) | (subnetLocal ? 8 : 0)));
                b.put(m + 95, (byte) ((localAckTimeout & 0x1F) << 3));
                // no alternate path: bytes 96..139 stay zero
                break;
            case MRA:
                b.putInt(m, localCommId);
                b.putInt(m + 4, remoteCommId);
                b.put(m + 8, (byte) ((messageCode & 3) << 6));
                b.put(m + 9, (byte) ((serviceTimeout & 0x1F) << 3));
                break;
            case REJ:
                b.putInt(m, localCommId);
                b.putInt(m + 4, remoteCommId);
                b.put(m + 8, (byte) ((messageCode & 3) << 6));
                b.put(m + 9, (byte) ((ariLength & 0x7F) << 1));
                b.putShort(m + 10, (short) reason);
                for (int i = 0; i < ariLength; i++) {
                    b.put(m + 12 + i, ari[i]);
                }
                break;
            case REP:
                b.putInt(m, localCommId);
                b.putInt(m + 4, remoteCommId);
                b.putInt(m + 8, localQkey);
                b.putInt(m + 12, localQpn << 8);
                b.putInt(m + 16, 0); // local EE context
                b.putInt(m + 20, startingPsn << 8);
                b.put(m + 24, (byte) responderResources);
                b.put(m + 25, (byte) initiatorDepth);
                b.put(m + 26, (byte) (((targetAckDelay & 0x1F) << 3) | ((failoverAccepted & 3) << 1)
                        | (e2eFlowControl ? 1 : 0)));
                b.put(m + 27, (byte) (((rnrRetryCount & 7) << 5) | (srq ? 0x10 : 0)));
                b.putLong(m + 28, localCaGuid);
                break;
            case RTU:
            case DREP:
                b.putInt(m, localCommId);
                b.putInt(m + 4, remoteCommId);
                break;
            case DREQ:
                b.putInt(m, localCommId);
                b.putInt(m + 4, remoteCommId);
                b.putInt(m + 8, remoteQpn << 8);
                break;
            case SIDR_REQ:
                b.putInt(m, localCommId);
                b.putShort(m + 4, (short) pkey);
                b.putLong(m + 8, serviceId);
                break;
            case SIDR_REP:
                b.putInt(m, localCommId);
                b.put(m + 4, (byte) sidrStatus);
                b.put(m + 5, (byte) 0); // no additional information
                b.putInt(m + 8, remoteQpn << 8);
                b.putLong(m + 12, serviceId);
                b.putInt(m + 20, qkey);
                break;
            default:
                throw new IllegalStateException("unknown CM attribute 0x" + Integer.toHexString(attrId));
        }
        int p = off + privateOffset(attrId);
        for (int i = 0; i < privateLength; i++) {
            b.put(p + i, privateData[i]);
        }
    }

    /**
     * Reads a MAD at {@code off}.
     *
     * @param b the buffer (big-endian)
     * @param off first byte
     * @param len bytes available
     * @return false if it is not a well-formed CM MAD of a type this CM knows (the caller drops and counts it)
     */
    boolean decode(ByteBuffer b, int off, int len) {
        clear();
        if (len < SIZE || (b.get(off) & 0xFF) != BASE_VERSION || (b.get(off + 1) & 0xFF) != MGMT_CLASS_CM
                || (b.get(off + 2) & 0xFF) != CLASS_VERSION || (b.get(off + 3) & 0xFF) != METHOD_SEND) {
            return false;
        }
        status = b.getShort(off + 4) & 0xFFFF;
        tid = b.getLong(off + 8);
        attrId = b.getShort(off + 16) & 0xFFFF;
        int m = off + HEADER;
        switch (attrId) {
            case REQ:
                localCommId = b.getInt(m);
                serviceId = b.getLong(m + 8);
                localCaGuid = b.getLong(m + 16);
                localQkey = b.getInt(m + 28);
                localQpn = b.getInt(m + 32) >>> 8;
                responderResources = b.get(m + 35) & 0xFF;
                initiatorDepth = b.get(m + 39) & 0xFF;
                remoteCmResponseTimeout = (b.get(m + 43) & 0xFF) >>> 3;
                transportType = (b.get(m + 43) >>> 1) & 3;
                e2eFlowControl = (b.get(m + 43) & 1) != 0;
                startingPsn = b.getInt(m + 44) >>> 8;
                localCmResponseTimeout = (b.get(m + 47) & 0xFF) >>> 3;
                retryCount = b.get(m + 47) & 7;
                pkey = b.getShort(m + 48) & 0xFFFF;
                pathMtu = (b.get(m + 50) & 0xFF) >>> 4;
                rnrRetryCount = b.get(m + 50) & 7;
                maxCmRetries = (b.get(m + 51) & 0xFF) >>> 4;
                srq = (b.get(m + 51) & 8) != 0;
                primaryLocalLid = b.getShort(m + 52) & 0xFFFF;
                primaryRemoteLid = b.getShort(m + 54) & 0xFFFF;
                primaryLocalGid = Gid.read(b, m + 56);
                primaryRemoteGid = Gid.read(b, m + 72);
                flowLabel = b.getInt(m + 88) >>> 12;
                packetRate = b.get(m + 91) & 0x3F;
                trafficClass = b.get(m + 92) & 0xFF;
                hopLimit = b.get(m + 93) & 0xFF;
                sl = (b.get(m + 94) & 0xFF) >>> 4;
                subnetLocal = (b.get(m + 94) & 8) != 0;
                localAckTimeout = (b.get(m + 95) & 0xFF) >>> 3;
                break;
            case MRA:
                localCommId = b.getInt(m);
                remoteCommId = b.getInt(m + 4);
                messageCode = (b.get(m + 8) & 0xFF) >>> 6;
                serviceTimeout = (b.get(m + 9) & 0xFF) >>> 3;
                break;
            case REJ:
                localCommId = b.getInt(m);
                remoteCommId = b.getInt(m + 4);
                messageCode = (b.get(m + 8) & 0xFF) >>> 6;
                ariLength = Math.min(REJ_ARI, (b.get(m + 9) & 0xFF) >>> 1);
                reason = b.getShort(m + 10) & 0xFFFF;
                for (int i = 0; i < ariLength; i++) {
                    ari[i] = b.get(m + 12 + i);
                }
                break;
            case REP:
                localCommId = b.getInt(m);
                remoteCommId = b.getInt(m + 4);
                localQkey = b.getInt(m + 8);
                localQpn = b.getInt(m + 12) >>> 8;
                startingPsn = b.getInt(m + 20) >>> 8;
                responderResources = b.get(m + 24) & 0xFF;
                initiatorDepth = b.get(m + 25) & 0xFF;
                targetAckDelay = (b.get(m + 26) & 0xFF) >>> 3;
                failoverAccepted = (b.get(m + 26) >>> 1) & 3;
                e2eFlowControl = (b.get(m + 26) & 1) != 0;
                rnrRetryCount = (b.get(m + 27) & 0xFF) >>> 5;
                srq = (b.get(m + 27) & 0x10) != 0;
                localCaGuid = b.getLong(m + 28);
                break;
            case RTU:
            case DREP:
                localCommId = b.getInt(m);
                remoteCommId = b.getInt(m + 4);
                break;
            case DREQ:
                localCommId = b.getInt(m);
                remoteCommId = b.getInt(m + 4);
                remoteQpn = b.getInt(m + 8) >>> 8;
                break;
            case SIDR_REQ:
                localCommId = b.getInt(m);
                pkey = b.getShort(m + 4) & 0xFFFF;
                serviceId = b.getLong(m + 8);
                break;
            case SIDR_REP:
                localCommId = b.getInt(m);
                sidrStatus = b.get(m + 4) & 0xFF;
                remoteQpn = b.getInt(m + 8) >>> 8;
                serviceId = b.getLong(m + 12);
                qkey = b.getInt(m + 20);
                break;
            default:
                return false;
        }
        int p = off + privateOffset(attrId);
        privateLength = privateCapacity(attrId);
        for (int i = 0; i < privateLength; i++) {
            privateData[i] = b.get(p + i);
        }
        return true;
    }
}
