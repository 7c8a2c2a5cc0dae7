package io.rvt.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.MemoryRegion;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.transport.engine.RequestBuilder;
import io.rvt.transport.engine.TxInfo;
import io.rvt.transport.header.Opcode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * {@link TxInfo#payloadByReference}: the same traffic run once with payload copied and once by reference puts the
 * same bytes on the wire (the test driver assembles the referenced slices where the copy would be), for every opcode
 * that carries payload; heap-buffer regions and too many slices fall back to the copy.
 */
class PayloadByReferenceTest {
    static final int MTU = 256;

    /** What one run saw: both drivers' packets in order, and the opcodes sent by reference and by copy. */
    record Run(List<byte[]> wire, Set<Integer> referenced, Set<Integer> copied, List<WcStatus> statuses,
            byte[] received, int runs, java.util.Map<io.rvt.api.PortCounter, Long> counters) {
    }

    /** Every RC, UC and UD operation with payload, multi-packet and multi-SGE, lengths not multiples of 4. */
    static Run run(int maxSegments, int minLength, boolean heapSource) {
        return run(maxSegments, minLength, heapSource, false, false);
    }

    /**
     * @param runs let the transport make runs ({@code TxInfo.runLimit}), put on the wire packet by packet
     * @param deliverRuns the same, each run handed to the receiver as one unit ({@code PacketHeaders.run})
     */
    static Run run(int maxSegments, int minLength, boolean heapSource, boolean runs, boolean deliverRuns) {
        Fabric fabric = new Fabric();
        Node a = fabric.node("a", 1, 4096);
        Node b = fabric.node("b", 2, 4096);
        for (Node n : List.of(a, b)) {
            n.driver.logSent = true;
            n.driver.runs = runs;
            n.driver.deliverRuns = deliverRuns;
            if (maxSegments > 0) {
                n.driver.payloadByReference(maxSegments, minLength);
            }
        }
        MemoryRegion src = heapSource ? a.pd.regMr(ByteBuffer.allocate(1 << 16), Node.ALL_ACCESS) : a.reg(1 << 16);
        MemoryRegion src2 = a.reg(1 << 16);
        MemoryRegion dst = b.reg(1 << 16);
        MemoryRegion remote = b.reg(1 << 16);
        MemoryRegion local = a.reg(1 << 16);
        RcOperationsTest.fill(src, 3);
        RcOperationsTest.fill(src2, 4);
        RcOperationsTest.fill(remote, 5);
        int signaled = SendFlag.SIGNALED.bit();

        QueuePair[] rc = Node.pair(QpType.RC, a, b, 64, 4);
        for (int i = 0; i < 6; i++) { // four SENDs and two WRITEs with immediate
            b.postRecv(rc[1], i, dst, 0, 8 * MTU);
        }
        // Four SGEs over two regions, two of them adjacent (merged into one slice).
        SendWorkRequest four = new SendWorkRequest(4).wrId(1).opcode(WrOpcode.SEND).sendFlags(signaled);
        sge(four, src, 10, 300);
        sge(four, src, 310, 200);
        sge(four, src2, 7, 123);
        sge(four, src, 5000, 400);
        rc[0].postSend(four);
        rc[0].postSend(new SendWorkRequest(1).wrId(2).opcode(WrOpcode.SEND_WITH_IMM).immData(9).sendFlags(signaled)
                .sge(src, 1, 2 * MTU + 3));
        MemoryRegion victim = b.pd.allocMr(4);
        rc[0].postSend(sge(sge(new SendWorkRequest(2).wrId(3).opcode(WrOpcode.SEND_WITH_INV)
                .invalidateRkey(victim.rkey()).sendFlags(signaled), src2, 2, 99), src, 900, 1));
        rc[0].postSend(new SendWorkRequest(1).wrId(4).opcode(WrOpcode.SEND).sendFlags(signaled).sge(src, 3, 5));
        rc[0].postSend(sge(sge(new SendWorkRequest(2).wrId(5).opcode(WrOpcode.RDMA_WRITE).sendFlags(signaled)
                .remoteAddr(dst.addr() + 4096).rkey(dst.rkey()), src, 11, 5 * MTU + 1), src2, 100, 50));
        rc[0].postSend(new SendWorkRequest(1).wrId(6).opcode(WrOpcode.RDMA_WRITE).sendFlags(signaled)
                .sge(src, 13, 77).remoteAddr(dst.addr() + 8192).rkey(dst.rkey()));
        rc[0].postSend(new SendWorkRequest(1).wrId(7).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(1)
                .sendFlags(signaled).sge(src, 17, 2 * MTU + 2).remoteAddr(dst.addr() + 12288).rkey(dst.rkey()));
        rc[0].postSend(new SendWorkRequest(1).wrId(8).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(2)
                .sendFlags(signaled).sge(src, 19, 61).remoteAddr(dst.addr() + 16384).rkey(dst.rkey()));
        rc[0].postSend(new SendWorkRequest(1).wrId(9).opcode(WrOpcode.RDMA_READ).sendFlags(signaled)
                .sge(local, 1, 3 * MTU + 7).remoteAddr(remote.addr() + 300).rkey(remote.rkey()));
        rc[0].postSend(new SendWorkRequest(1).wrId(10).opcode(WrOpcode.RDMA_READ).sendFlags(signaled)
                .sge(local, 2000, 101).remoteAddr(remote.addr() + 9).rkey(remote.rkey()));
        fabric.settle();

        QueuePair[] uc = Node.pair(QpType.UC, a, b, 64, 4);
        b.postRecv(uc[1], 20, dst, 0, 8 * MTU);
        b.postRecv(uc[1], 21, dst, 0, 8 * MTU);
        SendWorkRequest two = new SendWorkRequest(2).wrId(20).opcode(WrOpcode.SEND).sendFlags(signaled);
        uc[0].postSend(sge(sge(two, src, 21, 4 * MTU), src2, 0, MTU + 1));
        uc[0].postSend(new SendWorkRequest(1).wrId(21).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(3)
                .sendFlags(signaled).sge(src, 23, 2 * MTU + 5).remoteAddr(dst.addr() + 20000).rkey(dst.rkey()));
        uc[0].postSend(new SendWorkRequest(1).wrId(22).opcode(WrOpcode.RDMA_WRITE).sendFlags(signaled)
                .sge(src, 25, 3 * MTU + 6).remoteAddr(dst.addr() + 24000).rkey(dst.rkey()));
        fabric.settle();

        QueuePair ua = a.createQp(QpType.UD, 16, 4);
        QueuePair ub = b.createQp(QpType.UD, 16, 4);
        a.udUp(ua);
        b.udUp(ub);
        b.postRecv(ub, 30, dst, 0, 2 * MTU);
        b.postRecv(ub, 31, dst, 0, 2 * MTU);
        ua.postSend(sge(sge(new SendWorkRequest(2).wrId(30).opcode(WrOpcode.SEND).sendFlags(signaled)
                .ah(a.ah(b, false)).remoteQpn(ub.qpNum()).remoteQkey(Node.QKEY), src, 27, 100), src2, 3, 101));
        ua.postSend(new SendWorkRequest(1).wrId(31).opcode(WrOpcode.SEND_WITH_IMM).immData(4).sendFlags(signaled)
                .sge(src, 29, 203).ah(a.ah(b, true)).remoteQpn(ub.qpNum()).remoteQkey(Node.QKEY));
        fabric.settle();

        List<WcStatus> statuses = new ArrayList<>();
        for (WorkCompletion wc : Node.poll(a.scq)) {
            statuses.add(wc.status());
        }
        for (WorkCompletion wc : Node.poll(b.rcq)) {
            statuses.add(wc.status());
        }
        List<byte[]> wire = new ArrayList<>(a.driver.sentLog);
        wire.addAll(b.driver.sentLog);
        Set<Integer> referenced = new TreeSet<>(a.driver.referencedOpcodes);
        referenced.addAll(b.driver.referencedOpcodes);
        Set<Integer> copied = new TreeSet<>(a.driver.copiedOpcodes);
        copied.addAll(b.driver.copiedOpcodes);
        byte[] received = new byte[2 << 16];
        dst.buffer().get(0, received, 0, 1 << 16);
        local.buffer().get(0, received, 1 << 16, 1 << 16);
        java.util.Map<io.rvt.api.PortCounter, Long> counters = new java.util.EnumMap<>(io.rvt.api.PortCounter.class);
        for (io.rvt.api.PortCounter c : io.rvt.api.PortCounter.values()) {
            counters.put(c, a.counter(c) + b.counter(c));
        }
        return new Run(wire, referenced, copied, statuses, received, a.driver.runsMade + b.driver.runsMade,
                counters);
    }

    /** Appends an entry to the WR's scatter/gather list ({@code SendWorkRequest.sge(mr, ...)} replaces it). */
    static SendWorkRequest sge(SendWorkRequest wr, MemoryRegion mr, int offset, int length) {
        int n = wr.numSge();
        wr.sge(n).set(mr, offset, length);
        return wr.numSge(n + 1);
    }

    static void assertSameWire(Run expected, Run actual) {
        assertThat(actual.wire()).hasSameSizeAs(expected.wire());
        for (int i = 0; i < expected.wire().size(); i++) {
            assertThat(actual.wire().get(i)).as("packet %d", i).isEqualTo(expected.wire().get(i));
        }
        assertThat(actual.statuses()).isEqualTo(expected.statuses()).containsOnly(WcStatus.SUCCESS);
    }

    @Test
    void shouldPutTheSameBytesOnTheWireWhenPayloadIsReferenced() {
        Run copy = run(0, 0, false);
        Run ref = run(4, 1, false);
        assertSameWire(copy, ref);

        assertThat(copy.referenced()).isEmpty();
        Set<Integer> withPayload = new TreeSet<>(copy.copied());
        assertThat(withPayload).as("every opcode with payload is exercised").containsAll(List.of(
                Opcode.RC_SEND_FIRST, Opcode.RC_SEND_MIDDLE, Opcode.RC_SEND_LAST, Opcode.RC_SEND_ONLY,
                Opcode.RC_SEND_LAST_WITH_IMMEDIATE, Opcode.RC_SEND_ONLY_WITH_INVALIDATE,
                Opcode.RC_RDMA_WRITE_FIRST, Opcode.RC_RDMA_WRITE_MIDDLE, Opcode.RC_RDMA_WRITE_LAST,
                Opcode.RC_RDMA_WRITE_ONLY, Opcode.RC_RDMA_WRITE_LAST_WITH_IMMEDIATE,
                Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, Opcode.RC_RDMA_READ_RESPONSE_FIRST,
                Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, Opcode.RC_RDMA_READ_RESPONSE_LAST,
                Opcode.RC_RDMA_READ_RESPONSE_ONLY, Opcode.UC_SEND_FIRST, Opcode.UC_SEND_MIDDLE, Opcode.UC_SEND_LAST,
                Opcode.UC_RDMA_WRITE_FIRST, Opcode.UC_RDMA_WRITE_MIDDLE, Opcode.UC_RDMA_WRITE_LAST,
                Opcode.UC_RDMA_WRITE_LAST_WITH_IMMEDIATE, Opcode.UD_SEND_ONLY,
                Opcode.UD_SEND_ONLY_WITH_IMMEDIATE));
        // Referenced wherever the WQE outlives the packet's build: RC, and UC but for a message's last packet.
        Set<Integer> expectedRef = new TreeSet<>();
        for (int op : withPayload) {
            boolean uc = Opcode.transport(op) == Opcode.UC;
            if (Opcode.transport(op) == Opcode.RC || uc && !RequestBuilder.endsMessage(op)) {
                expectedRef.add(op);
            }
        }
        assertThat(ref.referenced()).isEqualTo(expectedRef);
        Set<Integer> expectedCopy = new TreeSet<>(withPayload);
        expectedCopy.removeAll(expectedRef);
        assertThat(ref.copied()).isEqualTo(expectedCopy);
    }

    @Test
    void shouldCopyWhenPayloadIsShortSlicesRunOutOrTheRegionIsOnTheHeap() {
        Run copy = run(0, 0, false);
        Run shortOnes = run(4, MTU, false);
        assertSameWire(copy, shortOnes);
        assertThat(shortOnes.copied()).contains(Opcode.RC_SEND_ONLY, Opcode.RC_RDMA_WRITE_ONLY,
                Opcode.RC_RDMA_READ_RESPONSE_ONLY);
        assertThat(shortOnes.referenced()).contains(Opcode.RC_SEND_FIRST).doesNotContain(Opcode.RC_SEND_ONLY);

        // One slice: the four-SGE SEND's packets that span regions are copied after recording a slice.
        Run oneSlice = run(1, 1, false);
        assertSameWire(copy, oneSlice);
        assertThat(oneSlice.copied()).containsAnyOf(Opcode.RC_SEND_FIRST, Opcode.RC_SEND_MIDDLE);
        assertThat(oneSlice.referenced()).contains(Opcode.RC_RDMA_WRITE_FIRST);

        Run heap = run(4, 1, true);
        Run heapCopy = run(0, 0, true);
        assertSameWire(heapCopy, heap);
        assertThat(heap.referenced()).contains(Opcode.RC_RDMA_READ_RESPONSE_FIRST)
                .doesNotContain(Opcode.RC_RDMA_WRITE_FIRST, Opcode.RC_RDMA_WRITE_MIDDLE);
    }
}
