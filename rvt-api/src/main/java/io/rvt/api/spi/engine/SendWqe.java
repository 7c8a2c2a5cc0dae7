package io.rvt.api.spi.engine;

import io.rvt.api.AhAttr;
import io.rvt.api.WrOpcode;
import io.rvt.api.spi.DriverAh;
import io.rvt.api.spi.DriverMr;
import io.rvt.api.spi.Sge;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The driver's view of a send work-queue entry ({@code struct rvt_swqe}): a slot of a QP's send ring holding a copy
 * of the posted work request, its validated SGEs (each holding a region reference), its PSN range and SSN, and a
 * driver-private object. For UD, SMI and GSI QPs it also holds the {@code struct rvt_ud_wr} part: the address handle
 * and a per-slot cache of its attributes, snapshotted at post time.
 *
 * <p>A slot belongs to the poster until the post publishes {@code sendHead}, then to the send engine (under
 * {@code sendLock}) until {@link SendQueue#completeSwqe} moves {@code sendLast} past it.
 */
@ProviderType
public interface SendWqe {
    /** @return the caller's work-request id */
    long wrId();

    /** @return the operation */
    WrOpcode opcode();

    /**
     * Changes the operation ({@code setup_wqe} may rewrite it).
     *
     * @param opcode the new operation
     */
    void opcode(WrOpcode opcode);

    /**
     * @return the send flags: the caller's {@code SendFlag} bits plus rdmavt's {@link QpFlags#SEND_RESERVE_USED} and
     *         {@link QpFlags#SEND_COMPLETION_ONLY}
     */
    int sendFlags();

    /** @return the number of validated SGEs ({@code wr.num_sge} after zero-length entries were skipped and merged) */
    int numSge();

    /**
     * @param i index, below {@link #numSge()}
     * @return the validated SGE
     */
    Sge sge(int i);

    /** @return the slot's SGE array (length {@code max_send_sge}; entries at and beyond {@link #numSge()} unused) */
    Sge[] sgList();

    /** @return total bytes of the message ({@code length}) */
    int length();

    /** @return first PSN ({@code psn}) */
    int psn();

    /**
     * @param psn first PSN
     */
    void psn(int psn);

    /** @return last PSN ({@code lpsn}) */
    int lpsn();

    /**
     * @param lpsn last PSN
     */
    void lpsn(int lpsn);

    /** @return send sequence number ({@code ssn}; 0 for local operations) */
    int ssn();

    /** @return the driver's private object of this slot ({@code priv}) */
    Object priv();

    /**
     * @param priv the driver's private object of this slot
     */
    void priv(Object priv);

    /** @return immediate data */
    int immData();

    /** @return the rkey to invalidate (SEND_WITH_INV, LOCAL_INV) */
    int invalidateRkey();

    /** @return remote virtual address (RDMA, atomics) */
    long remoteAddr();

    /** @return remote key (RDMA, atomics) */
    int rkey();

    /** @return compare value or addend (atomics) */
    long compareAdd();

    /** @return swap value (compare and swap) */
    long swap();

    /** @return FLUSH: the placement type bits ({@code IB_FLUSH_GLOBAL} 1, {@code IB_FLUSH_PERSISTENT} 2) */
    int flushType();

    /** @return FLUSH: the selectivity level ({@code IB_FLUSH_RANGE} 0, {@code IB_FLUSH_MR} 1) */
    int flushLevel();

    /** @return FLUSH: the range's length, the RETH's DMA length */
    int flushLength();

    /** @return mirrors {@code rvt_get_swqe_ah}: the address handle the request named (live object; UD-like QPs) */
    DriverAh ah();

    /**
     * Mirrors {@code rvt_get_swqe_ah_attr}: the address attributes as they were when the request was posted (a
     * per-slot cache, see {@code struct rvt_ud_wr}); use these, not the live handle's, to build headers.
     *
     * @return the cached attributes (UD-like QPs)
     */
    AhAttr ahAttr();

    /** @return mirrors {@code rvt_get_swqe_remote_qpn}: destination QPN (UD-like QPs) */
    int remoteQpn();

    /**
     * Mirrors {@code rvt_get_swqe_remote_qkey}: destination Q_Key. If its top bit is set the QP's own Q_Key is to be
     * used instead (IBTA 10.2.5).
     *
     * @return the Q_Key as posted (UD-like QPs)
     */
    int remoteQkey();

    /** @return mirrors {@code rvt_get_swqe_pkey_index}: P_Key index (GSI) */
    int pkeyIndex();

    /** @return the region of a REG_MR request */
    DriverMr regMr();

    /** @return the key of a REG_MR request */
    int regKey();

    /** @return the access flags of a REG_MR request */
    int regAccess();

    /**
     * Mirrors {@code rvt_put_swqe}: drops the region reference of each of the {@link #numSge()} SGEs. Called by
     * {@link SendQueue#completeSwqe}; a driver never calls it on a WQE it then completes.
     */
    void putMrs();
}
