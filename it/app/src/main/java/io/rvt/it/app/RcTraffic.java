package io.rvt.it.app;

import io.rvt.api.CompletionQueue;
import io.rvt.api.Device;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import java.nio.ByteBuffer;

/**
 * Synchronous RC traffic with checked data: one SEND at a time from a QP on one device to a QP on another (or the
 * same) device, lengths 1..4096, each received message compared byte by byte with what was sent.
 */
public final class RcTraffic {
    private static final int MAX_MESSAGE = 4096;
    private static final long COMPLETION_DEADLINE_NS = 30_000_000_000L;

    private RcTraffic() {
    }

    /**
     * Runs the traffic and cleans up.
     *
     * @param from     the sender's device
     * @param to       the receiver's device
     * @param messages how many messages
     * @return a one-line summary: {@code passed: N RC messages from <device> to <device>, data checked}
     * @throws IllegalStateException if a completion fails, does not come, or the data differs
     */
    public static String run(Device from, Device to, int messages) {
        RcEndpoint[] ends = RcEndpoint.connected(from, to, MAX_MESSAGE, 4);
        RcEndpoint a = ends[0];
        RcEndpoint b = ends[1];
        SendWorkRequest send = new SendWorkRequest(1).opcode(WrOpcode.SEND);
        RecvWorkRequest recv = new RecvWorkRequest(1).sge(b.mr, 0, MAX_MESSAGE);
        WorkCompletion wc = new WorkCompletion();
        long bytes = 0;
        for (int i = 0; i < messages; i++) {
            int len = 1 + (i * 97) % MAX_MESSAGE;
            fill(a.buffer, len, i);
            b.qp.postRecv(recv.wrId(i));
            a.qp.postSend(send.wrId(i).sge(a.mr, 0, len));
            await(a.sendCq, wc, i, "send");
            await(b.recvCq, wc, i, "receive");
            if (wc.byteLen() != len) {
                throw new IllegalStateException("message " + i + ": received " + wc.byteLen() + " bytes, sent " + len);
            }
            check(b.buffer, len, i);
            bytes += len;
        }
        a.destroy();
        b.destroy();
        return "passed: " + messages + " RC messages (" + bytes + " bytes) from " + from.name() + " to " + to.name()
                + ", data checked";
    }

    /** Fills {@code len} bytes with the pattern of message {@code seq}. */
    static void fill(ByteBuffer buf, int len, long seq) {
        for (int j = 0; j < len; j++) {
            buf.put(j, pattern(seq, j));
        }
    }

    /** @throws IllegalStateException at the first byte that is not the pattern of message {@code seq} */
    static void check(ByteBuffer buf, int len, long seq) {
        for (int j = 0; j < len; j++) {
            if (buf.get(j) != pattern(seq, j)) {
                throw new IllegalStateException("message " + seq + ": byte " + j + " is " + buf.get(j) + ", sent "
                        + pattern(seq, j));
            }
        }
    }

    private static byte pattern(long seq, int offset) {
        return (byte) (seq * 31 + offset * 7 + 1);
    }

    private static void await(CompletionQueue cq, WorkCompletion wc, long wrId, String what) {
        long deadline = System.nanoTime() + COMPLETION_DEADLINE_NS;
        while (!cq.pollCq(wc)) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("message " + wrId + ": no " + what + " completion within 30 s");
            }
            Thread.onSpinWait();
        }
        if (wc.status() != WcStatus.SUCCESS || wc.wrId() != wrId) {
            throw new IllegalStateException("message " + wrId + ": " + what + " completed with " + wc.status()
                    + " for wrId " + wc.wrId());
        }
    }
}
