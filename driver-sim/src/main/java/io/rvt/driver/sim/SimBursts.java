package io.rvt.driver.sim;

import io.rvt.api.QpType;
import io.rvt.api.spi.DriverQp;
import io.rvt.driver.sim.fabric.Fabric;
import io.rvt.driver.sim.fabric.FabricPort;
import io.rvt.driver.sim.fabric.Frame;
import io.rvt.transport.engine.TxInfo;
import io.rvt.transport.header.Opcode;
import io.rvt.transport.header.PacketHeaders;

/**
 * A simulated HCA's bursts ({@link Frame#burst}): how many packets of one RC message a QP may make at once, and the
 * one {@code long} a burst's frame carries to describe its packets after the first, written by the sender
 * ({@link #describe}) and read by the receiver ({@link #takeRun}) -- both halves of that layout live here.
 */
final class SimBursts {
    private SimBursts() {
    }

    /**
     * How many packets the transport may make at once for the QP ({@code TxInfo.runLimit}): the fabric's
     * {@link Fabric#burstLimit} for the QP's destination (RC only), asked again only when the fabric's burst epoch,
     * the port or the destination changed (cached in the QP's engine).
     *
     * @param fabric the fabric
     * @param s the QP's engine, which caches the answer
     * @param qp the QP
     * @param port the port it sends from
     * @return the limit, at least 1
     */
    static int limit(Fabric fabric, SimQp s, DriverQp qp, FabricPort port) {
        if (qp.type() != QpType.RC) {
            return 1;
        }
        int epoch = fabric.burstEpoch();
        int dlid = qp.remoteAhAttr().dlid(); // read without the QP's lock: a hint, checked against the packet's
        if (epoch != s.burstEpoch || dlid != s.burstDlid || port != s.burstPort) {
            s.burstLimit = fabric.burstLimit(port, dlid);
            s.burstEpoch = epoch;
            s.burstDlid = dlid;
            s.burstPort = port;
        }
        return s.burstLimit;
    }

    /**
     * @param tx the run the transport just made
     * @return its packets after the first, as {@link #takeRun} reads them: the AckReq mask (bits 0-31), the last
     *         packet's opcode (32-39), payload length (40-55) and solicited event bit (56)
     */
    static long describe(TxInfo tx) {
        return (tx.runAckMask() & 0xFFFF_FFFFL) | (long) (tx.runLastOpcode() & 0xFF) << 32
                | (long) (tx.runLastPayloadLength() & 0xFFFF) << 40 | (tx.runLastSolicited() ? 1L << 56 : 0L);
    }

    /**
     * Describes a burst's later packets to the transport ({@code PacketHeaders.run}).
     *
     * @param h the headers of the burst's first packet
     * @param packets the burst's packets
     * @param info what {@link #describe} wrote
     * @return false if they do not add up (the caller drops the burst as malformed)
     */
    static boolean takeRun(PacketHeaders h, int packets, long info) {
        int operation = h.opcode() & Opcode.OPERATION_MASK;
        if (Opcode.transport(h.opcode()) != Opcode.RC || operation != Opcode.SEND_FIRST
                && operation != Opcode.SEND_MIDDLE && operation != Opcode.RDMA_WRITE_FIRST
                && operation != Opcode.RDMA_WRITE_MIDDLE) {
            return false;
        }
        try {
            h.run(packets, (int) info, (int) (info >>> 32) & 0xFF, (int) (info >>> 40) & 0xFFFF,
                    (info >>> 56 & 1) != 0);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
