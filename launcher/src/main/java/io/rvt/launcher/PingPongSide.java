package io.rvt.launcher;

import io.rvt.api.AddressHandle;
import io.rvt.api.QueuePair;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import java.util.Locale;

/**
 * One end of a ping-pong: a connected QP on an {@link Endpoint}, its one send and one receive request, and the check
 * of every received message against the pattern of its stamp ({@link DataPattern}): the ping of iteration i carries
 * stamp 2i, its pong 2i + 1, so both ends know what each message must hold, in one process or two. Allocates nothing
 * per message.
 */
final class PingPongSide {
    /** Its endpoint. */
    final Endpoint endpoint;
    /** Its QP. */
    final QueuePair qp;
    private final Host host;
    private final int size;
    private final int dataOff;
    private final SendWorkRequest send;
    private final RecvWorkRequest recv;
    private final WorkCompletion wc = new WorkCompletion();
    private final String hint;
    private final String recvWhat;
    private final String sendWhat;
    /** Test hook: the iteration whose received message gets one byte flipped before it is checked, or -1. */
    private long corruptIteration = -1;

    /**
     * @param host the host, whose network progresses while this side waits
     * @param endpoint the side's endpoint (its buffer holds {@code dataOff + size} bytes)
     * @param qp its connected QP
     * @param transport RC, UC or UD
     * @param size bytes per message
     * @param ah for UD, the address handle to the other side (else null)
     * @param remoteQpn for UD, the other side's QPN
     * @param remoteQkey for UD, its Q_Key
     */
    PingPongSide(Host host, Endpoint endpoint, QueuePair qp, Transport transport, int size, AddressHandle ah,
            int remoteQpn, int remoteQkey) {
        this.host = host;
        this.endpoint = endpoint;
        this.qp = qp;
        this.size = size;
        // UD receives land after a 40-byte GRH area: both sides keep their payload at that offset
        this.dataOff = dataOffset(transport);
        this.send = new SendWorkRequest(1).opcode(WrOpcode.SEND).sge(endpoint.mr, dataOff, size);
        if (ah != null) {
            send.ah(ah).remoteQpn(remoteQpn).remoteQkey(remoteQkey);
        }
        this.recv = new RecvWorkRequest(1).sge(endpoint.mr, 0, dataOff + size);
        this.hint = Completions.lossHint(transport);
        this.recvWhat = "the receive on " + endpoint.device.name();
        this.sendWhat = "the send on " + endpoint.device.name();
    }

    /**
     * @param transport a transport
     * @return where a message's payload starts in a side's buffer: after the GRH area on UD
     */
    static int dataOffset(Transport transport) {
        return transport == Transport.UD ? Endpoint.GRH_BYTES : 0;
    }

    /** Posts the receive for the next message. */
    void postReceive() {
        qp.postRecv(recv);
    }

    /**
     * Fills the buffer with {@code stamp}'s pattern and posts the send.
     *
     * @param stamp the message's stamp
     */
    void send(long stamp) {
        DataPattern.fill(endpoint.buffer, dataOff, size, stamp);
        qp.postSend(send);
    }

    /** Waits for the send's completion. */
    void awaitSend() {
        Completions.await(host, endpoint.sendCq, wc, sendWhat, hint);
    }

    /**
     * Waits for the completion of a send whose answer has already arrived, the last before the peer may disconnect:
     * if the peer's acknowledgement was lost and its disconnect flushed the send (or the retries ran out with the
     * peer gone), the answer shows that the send arrived, so a flush or RETRY_EXC_ERR is not an error here.
     */
    void awaitAnsweredSend() {
        Completions.take(host, endpoint.sendCq, wc, sendWhat, hint);
        if (wc.status() != WcStatus.WR_FLUSH_ERR && wc.status() != WcStatus.RETRY_EXC_ERR) {
            Completions.check(wc, sendWhat);
        }
    }

    /**
     * Waits for the next message and checks it byte for byte.
     *
     * @param stamp the stamp it must carry
     * @param iteration its iteration, for the error
     * @param leg "ping" or "pong", for the error
     * @throws DataCorruptionException if it differs from what was sent
     */
    void awaitReceive(long stamp, long iteration, String leg) {
        awaitReceive(stamp, -1, iteration, leg);
    }

    /**
     * Waits for the next message and checks it byte for byte against either of two stamps.
     *
     * @param stamp the stamp it carries as a rule
     * @param other another stamp it may carry instead (only if the two patterns differ in the message), or -1
     * @param iteration its iteration, for the error
     * @param leg "ping" or "pong", for the error
     * @return true if it carries {@code other}
     * @throws DataCorruptionException if it differs from what was sent
     */
    boolean awaitReceive(long stamp, long other, long iteration, String leg) {
        Completions.take(host, endpoint.recvCq, wc, recvWhat, hint);
        if (wc.status() == WcStatus.WR_FLUSH_ERR) {
            flushed(iteration, leg);
        }
        Completions.check(wc, recvWhat);
        if (iteration == corruptIteration) {
            endpoint.buffer.put(dataOff + size / 2, (byte) ~endpoint.buffer.get(dataOff + size / 2));
        }
        int bad = DataPattern.firstMismatch(endpoint.buffer, dataOff, size, stamp);
        if (bad >= 0 && other >= 0 && DataPattern.distinguishable(stamp, other, size)
                && DataPattern.firstMismatch(endpoint.buffer, dataOff, size, other) < 0) {
            return true;
        }
        if (bad >= 0) {
            throw new DataCorruptionException(String.format(Locale.ROOT,
                    "data corruption: %s of iteration %d received on %s: byte %d of %d is 0x%02x, sent 0x%02x", leg,
                    iteration, endpoint.device.name(), bad, size, endpoint.buffer.get(dataOff + bad) & 0xFF,
                    DataPattern.expected(stamp, bad) & 0xFF));
        }
        return false;
    }

    /**
     * The receive was flushed: the QP went to ERR, and the error that sent it there is what the user needs to know.
     * This side's send, if it failed (an RC send whose retries ran out: RETRY_EXC_ERR), is that error; a flush with
     * no failed send here means the peer went away (its disconnect moved the QP to ERR).
     */
    private void flushed(long iteration, String leg) {
        WorkCompletion s = new WorkCompletion(); // the run is over: allocating is fine
        String why = endpoint.sendCq.pollCq(s) && s.status() != WcStatus.SUCCESS
                && s.status() != WcStatus.WR_FLUSH_ERR
                ? "; the QP went to ERR when this side's send failed: " + s.status() + " (wr_id " + s.wrId() + ")"
                : "; no failed send of this side seen: the peer disconnected, or its QP went to ERR";
        throw new IllegalStateException(recvWhat + " failed: " + wc.status() + " (wr_id " + wc.wrId() + ", " + leg
                + " of iteration " + iteration + ")" + why);
    }

    /**
     * Test hook: flips one byte of the message this side receives in {@code iteration}, as a faulty data path would.
     *
     * @param iteration the iteration, from 0
     */
    void corruptReceivedByteAt(long iteration) {
        this.corruptIteration = iteration;
    }
}
