package io.rvt.driver.jni;

import io.rvt.transport.TxInfo;
import io.rvt.transport.header.Icrc;

/**
 * What one sending thread needs: its batch of datagrams, the {@link TxInfo} the transport fills, and an ICRC
 * calculator; and the port and socket the batch is for (a batch goes out through one socket).
 */
final class TxScratch {
    final TxBatch batch;
    final TxInfo info = new TxInfo();
    final Icrc icrc = new Icrc();
    PortEngine port;
    /** The socket of {@link #port} the batch goes out through ({@code port.senders[sender]}). */
    int sender;

    TxScratch(int slots, int slotSize) {
        this.batch = new TxBatch(slots, slotSize);
    }
}
