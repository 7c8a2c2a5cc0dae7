package io.rvt.transport.engine;

import io.rvt.api.spi.engine.EngineQp;
import io.rvt.transport.Transport;
import io.rvt.transport.header.PacketHeaders;
import java.nio.ByteBuffer;

/**
 * The protocol of one transport service (RC, UC or UD; hfi1's {@code rc.c}, {@code uc.c}, {@code ud.c}) over the
 * per-QP state {@code S} it keeps. A QP's {@link QpProtocolState} carries its engine, so the transport dispatches by
 * the state it finds, not by testing its class.
 *
 * @param <S> the per-QP protocol state this engine works on
 */
public interface ProtocolEngine<S extends QpProtocolState> {
    /**
     * Writes the next packet of {@code qp} ({@link Transport#makePacket}); takes {@code sendLock}.
     *
     * @param qp the QP
     * @param st its protocol state
     * @param buf the packet buffer
     * @param offset where the BTH goes
     * @param tx filled with the destination and sizes
     * @return transport bytes written, 0 if nothing to send
     */
    int makePacket(EngineQp qp, S st, ByteBuffer buf, int offset, TxInfo tx);

    /**
     * Processes a packet whose transport, opcode and P_Key the transport already checked ({@link Transport#receive}).
     *
     * @param qp the destination QP, retained
     * @param st its protocol state
     * @param buf the buffer the packet was parsed from
     * @param hdr its parsed headers
     * @param rx what the framing told the driver
     * @param pkeyIndex the P_Key table index that matched
     */
    void receive(EngineQp qp, S st, ByteBuffer buf, PacketHeaders hdr, RxInfo rx, int pkeyIndex);

    /**
     * The QP entered ERR ({@link Transport#errorQp}): drop what the engine holds. Nothing by default.
     *
     * @param qp the QP
     * @param st its protocol state
     */
    default void error(EngineQp qp, S st) {
    }

    /**
     * Go-back-N after the retry timer ({@link Transport#restartRc}); only RC resends. Nothing by default.
     *
     * @param qp the QP
     * @param st its protocol state
     * @param psn the PSN to resend from
     * @param wait 1 to send one packet and wait for its ACK
     */
    default void restart(EngineQp qp, S st, int psn, int wait) {
    }
}
