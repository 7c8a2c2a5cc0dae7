package io.rvt.driver.jni;

import io.rvt.transport.engine.TxInfo;
import io.rvt.transport.header.Icrc;

/**
 * What one sending thread needs: its batch of datagrams, the {@link TxInfo} the transport fills, and an ICRC
 * calculator; and the port and socket the batch is for (a batch goes out through one socket). The driver keeps one
 * per sending thread in an {@link io.rvt.transport.ThreadScratch}.
 */
final class TxScratch {
    /**
     * The shortest payload sent by reference on the native wire: below it, copying into the slot costs less than
     * the extra segments of a gather.
     */
    static final int ZERO_COPY_MIN = 512;

    final TxBatch batch;
    final TxInfo info = new TxInfo();
    final Icrc icrc = new Icrc();
    PortEngine port;
    /** The socket of {@link #port} the batch goes out through (its UDP source port). */
    Datagrams sender;

    /**
     * @param slots datagrams per batch
     * @param slotSize bytes per slot
     * @param gather whether the wire gathers datagrams (native): then the transport references payload in registered
     *        memory instead of copying it into the slot
     */
    TxScratch(int slots, int slotSize, boolean gather) {
        this.batch = new TxBatch(slots, slotSize);
        if (gather) {
            info.payloadByReference(TxBatch.MAX_PAYLOAD_SEGMENTS, ZERO_COPY_MIN);
        }
    }
}
