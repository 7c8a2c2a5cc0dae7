package io.rvt.driver.sim;

import io.rvt.driver.sim.fabric.Frame;
import io.rvt.transport.engine.TxInfo;
import io.rvt.transport.header.Icrc;
import java.nio.ByteBuffer;

/** What one sending thread of a {@link SimDriver} needs: the TxInfo the transport fills and an ICRC calculator. */
final class SimScratch {
    /** Shorter payloads are copied into the frame: below this a copy costs less than carrying references. */
    static final int MIN_REFERENCE_LENGTH = 512;

    // Payload by reference: an RC request's frame points into the sending region (see SimDriver.placePayload).
    final TxInfo tx = new TxInfo().payloadByReference(Frame.MAX_PAYLOAD_SLICES, MIN_REFERENCE_LENGTH);
    final Icrc icrc = new Icrc();
    /** The frames of the drain on their way to the fabric as one train. */
    final SimTrain train = new SimTrain();
    /** What a QP in ERR flushes into when no frame is free (SimDriver.flushWithoutFrame); made on first use. */
    ByteBuffer flushBuffer;
}
