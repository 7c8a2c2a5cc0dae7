package io.rvt.cm;

import io.rvt.api.Gid;
import java.net.InetAddress;

/**
 * Where and how to connect ({@code rdma_resolve_addr} + {@code rdma_resolve_route} + {@code rdma_connect}'s
 * {@code rdma_conn_param}, in one object): the destination (a GID, or an IP address that stands for its RoCEv2 GID)
 * and CM port, the QP to build, the private data of the REQ, the local HCA port, the path's GRH fields and the CM
 * timing. A mutable fluent object, read when {@link ConnectionManager#connectAsync} is called.
 */
public final class ConnectOptions {
    private Gid destination;
    private InetAddress destinationAddress;
    private int port = -1;
    private QpOptions qp = new QpOptions();
    private byte[] privateData = new byte[0];
    private int hcaPort = 1;
    private int sgidIndex;
    private int sourcePort = -1;
    private int trafficClass;
    private int hopLimit = 64;
    private int flowLabel;
    private int sl;
    private int cmResponseTimeout = -1;
    private int maxCmRetries = -1;

    /** @return the destination GID, or null if not set */
    public Gid destination() {
        return destination;
    }

    /**
     * @param gid the remote port's GID (on driver-sim, the peer HCA's port GID; on RoCEv2 the peer's address GID)
     * @return this
     */
    public ConnectOptions destination(Gid gid) {
        this.destination = gid;
        this.destinationAddress = null;
        return this;
    }

    /**
     * Sets the destination to the RoCEv2 GID of an IP address ({@link ConnectionManager#gidOf(InetAddress)}:
     * {@code ::ffff:a.b.c.d} for IPv4, the address itself for IPv6), and remembers the address for the IP CM header.
     *
     * @param address the peer's IP address
     * @return this
     */
    public ConnectOptions destination(InetAddress address) {
        this.destination = ConnectionManager.gidOf(address);
        this.destinationAddress = address;
        return this;
    }

    /** @return the destination as an IP address, or null if it was given as a GID */
    public InetAddress destinationAddress() {
        return destinationAddress;
    }

    /** @return the CM port, or -1 if not set */
    public int port() {
        return port;
    }

    /**
     * @param port the CM port the peer listens on, 0..65535: the service ID is
     *             {@code 0x0000000001060000 | port} (rdma_cm's RDMA_PS_TCP)
     * @return this
     */
    public ConnectOptions port(int port) {
        this.port = port;
        return this;
    }

    /** @return the QP options, changed in place */
    public QpOptions qp() {
        return qp;
    }

    /**
     * @param qp the QP options (copied when the connection is made)
     * @return this
     */
    public ConnectOptions qp(QpOptions qp) {
        this.qp = qp;
        return this;
    }

    /** @return a copy of the REQ's private data */
    public byte[] privateData() {
        return privateData.clone();
    }

    /**
     * @param data what the listener sees as {@link ConnectRequest#privateData()}: at most
     *             {@link ConnectionManager#MAX_REQ_PRIVATE_DATA} bytes (the REQ's 92 bytes less rdma_cm's 36-byte IP
     *             header), or null for none
     * @return this
     */
    public ConnectOptions privateData(byte[] data) {
        this.privateData = data == null ? new byte[0] : data.clone();
        return this;
    }

    /** @return the local HCA port */
    public int hcaPort() {
        return hcaPort;
    }

    /**
     * @param portNum the local HCA port, 1-based (default 1)
     * @return this
     */
    public ConnectOptions hcaPort(int portNum) {
        this.hcaPort = portNum;
        return this;
    }

    /** @return the source GID index */
    public int sgidIndex() {
        return sgidIndex;
    }

    /**
     * @param index the local port's GID table index to send from (default 0)
     * @return this
     */
    public ConnectOptions sgidIndex(int index) {
        this.sgidIndex = index;
        return this;
    }

    /** @return the source port of the IP CM header, or -1 for one the CM picks */
    public int sourcePort() {
        return sourcePort;
    }

    /**
     * @param port the source port the REQ's IP CM header names (rdma_cm: the bound port of the active ID), or -1
     *             (default) for an ephemeral one
     * @return this
     */
    public ConnectOptions sourcePort(int port) {
        this.sourcePort = port;
        return this;
    }

    /** @return the GRH traffic class of the path */
    public int trafficClass() {
        return trafficClass;
    }

    /**
     * @param tclass the primary path's traffic class, 0..255 (default 0)
     * @return this
     */
    public ConnectOptions trafficClass(int tclass) {
        this.trafficClass = tclass;
        return this;
    }

    /** @return the GRH hop limit of the path */
    public int hopLimit() {
        return hopLimit;
    }

    /**
     * @param hops the primary path's hop limit, 1..255 (default 64, the IP TTL rdma_cm uses on RoCEv2)
     * @return this
     */
    public ConnectOptions hopLimit(int hops) {
        this.hopLimit = hops;
        return this;
    }

    /** @return the GRH flow label of the path */
    public int flowLabel() {
        return flowLabel;
    }

    /**
     * @param label the primary path's 20-bit flow label (default 0)
     * @return this
     */
    public ConnectOptions flowLabel(int label) {
        this.flowLabel = label;
        return this;
    }

    /** @return the service level */
    public int sl() {
        return sl;
    }

    /**
     * @param sl the primary path's service level, 0..15 (default 0)
     * @return this
     */
    public ConnectOptions sl(int sl) {
        this.sl = sl;
        return this;
    }

    /** @return the CM response timeout code, or -1 for the CM's default */
    public int cmResponseTimeout() {
        return cmResponseTimeout;
    }

    /**
     * @param code how long to wait for each answer: 4.096 us x 2^code, 0..31; -1 (default) for
     *             {@link CmConfig#cmResponseTimeout()}
     * @return this
     */
    public ConnectOptions cmResponseTimeout(int code) {
        this.cmResponseTimeout = code;
        return this;
    }

    /** @return Max CM Retries, or -1 for the CM's default */
    public int maxCmRetries() {
        return maxCmRetries;
    }

    /**
     * @param retries how often a REQ (and the REP on the other side) is resent, 0..15; -1 (default) for
     *                {@link CmConfig#maxCmRetries()}
     * @return this
     */
    public ConnectOptions maxCmRetries(int retries) {
        this.maxCmRetries = retries;
        return this;
    }
}
