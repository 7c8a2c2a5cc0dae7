package io.rvt.api.spi;

import io.rvt.api.Gid;
import io.rvt.api.PortCounter;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The driver's view of a port ({@code struct rvt_ibport}): addressing and subnet-manager fields rdmavt reports in
 * {@code queryPort}, the P_Key table, the port's counters, its special QPs and multicast groups, and a slot for the
 * driver's own per-port object. Fields are written by the driver (any thread; individually atomic) and read by the
 * core.
 */
@ProviderType
public interface DriverPort {
    /** @return the port number, 1-based */
    int portNum();

    /** @return the base LID */
    int lid();

    /**
     * @param lid the base LID
     */
    void lid(int lid);

    /** @return the LID mask control */
    int lmc();

    /**
     * @param lmc the LID mask control
     */
    void lmc(int lmc);

    /** @return the GID prefix ({@code gid_prefix}, as a 64-bit number) */
    long gidPrefix();

    /**
     * @param prefix the GID prefix
     */
    void gidPrefix(long prefix);

    /** @return the subnet manager's LID ({@code sm_lid}) */
    int smLid();

    /**
     * @param lid the subnet manager's LID
     */
    void smLid(int lid);

    /** @return the subnet manager's SL ({@code sm_sl}) */
    int smSl();

    /**
     * @param sl the subnet manager's SL
     */
    void smSl(int sl);

    /** @return the capability mask ({@code port_cap_flags}) */
    int portCapFlags();

    /**
     * @param flags the capability mask
     */
    void portCapFlags(int flags);

    /** @return OPA capability mask 3 ({@code port_cap3_flags}) */
    int portCap3Flags();

    /** @return the subnet timeout code */
    int subnetTimeout();

    /**
     * @param code the subnet timeout code
     */
    void subnetTimeout(int code);

    /**
     * @param index the table index
     * @return the P_Key, or 0 if {@code index} is out of range (as {@code rvt_get_pkey})
     */
    int pkey(int index);

    /**
     * Sets a P_Key table entry.
     *
     * @param index the table index, below {@code npkeys}
     * @param pkey the P_Key (16 bits)
     */
    void pkey(int index, int pkey);

    /**
     * @param counter a counter
     * @return its value
     */
    long counter(PortCounter counter);

    /**
     * Adds to a counter (any thread).
     *
     * @param counter a counter
     * @param delta the amount
     */
    void addCounter(PortCounter counter, long delta);

    /**
     * @param qpn 0 or 1
     * @return the port's SMI (0) or GSI (1) QP, or null
     */
    DriverQp specialQp(int qpn);

    /**
     * Mirrors {@code rvt_mcast_find}: the group with {@code mgid}, if it exists and its LID is {@code mlid},
     * retained.
     *
     * @param mgid the multicast GID
     * @param mlid the multicast LID
     * @return the group, which the caller must release, or null
     */
    McastGroup mcastFind(Gid mgid, int mlid);

    /** @return the driver's object for this port ({@code priv}) */
    Object priv();

    /**
     * @param priv the driver's object for this port
     */
    void priv(Object priv);

    /** @return the device */
    DriverDevice device();
}
