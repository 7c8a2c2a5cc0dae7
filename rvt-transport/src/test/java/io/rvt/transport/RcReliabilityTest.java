package io.rvt.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.MemoryRegion;
import io.rvt.api.PortCounter;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.transport.engine.RxInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Property-style: random mixes of RC operations over a lossy, duplicating, reordering wire. Every message must arrive
 * exactly once, in order, byte-exact, and every send must complete successfully and in order. Each case draws from a
 * seeded {@link SplittableRandom} and prints its seed, so a failure can be replayed ({@code -Drvt.test.seed=N} adds N to
 * every seed to explore other cases).
 */
class RcReliabilityTest {
    static final int MTU = 256;
    static final int MESSAGES = 150;
    static final int SLOT = 2048; // bytes of buffer per message

    static String stats(Node n) {
        StringBuilder sb = new StringBuilder(n.toString());
        for (PortCounter c : new PortCounter[] {PortCounter.RC_TIMEOUTS, PortCounter.RC_RESENDS,
                PortCounter.SEQ_NAKS, PortCounter.RC_DUPREQ, PortCounter.RDMA_SEQ, PortCounter.RNR_NAKS,
                PortCounter.RC_ACKS, PortCounter.RC_QACKS, PortCounter.PKT_DROPS, PortCounter.RX_MALFORMED}) {
            sb.append(' ').append(c).append('=').append(n.counter(c));
        }
        return sb.toString();
    }

    @ParameterizedTest(name = "seed {0}, loss {1}, dup {2}, reorder {3}, receive batches {4}")
    @CsvSource({
        "1001, 0.01, 0.0, 0.0, false",
        "1002, 0.10, 0.0, 0.0, false",
        "1003, 0.0, 0.05, 0.0, false",
        "1004, 0.0, 0.0, 0.10, false",
        "1005, 0.01, 0.01, 0.01, false",
        "1006, 0.10, 0.05, 0.10, false",
        "1007, 0.10, 0.10, 0.20, false",
        "1008, 0.01, 0.0, 0.0, true",
        "1009, 0.10, 0.05, 0.10, true",
        "1010, 0.10, 0.10, 0.20, true",
    })
    void shouldDeliverEveryMessageExactlyOnceInOrderWhenTheWireMisbehaves(long baseSeed, double loss, double dup,
            double reorder, boolean batches) {
        // -Drvt.test.seed=N explores other cases; the printed seed replays one.
        long seed = baseSeed + Long.getLong("rvt.test.seed", 0L);
        System.out.println("RcReliabilityTest seed=" + seed + " loss=" + loss + " dup=" + dup + " reorder=" + reorder);
        SplittableRandom r = new SplittableRandom(seed);
        Fabric fabric = new Fabric().faults(seed * 31, loss, dup, reorder);
        if (batches) {
            fabric.batches(); // ACKs owed to the end of each batch (RxInfo.deferAck)
        }
        Node a = fabric.node("a", 1, 4096);
        Node b = fabric.node("b", 2, 4096);
        a.sqPsn = 0xFFFF00; // cross the 24-bit PSN wrap on the way
        QueuePair[] p = Node.pair(QpType.RC, a, b, MESSAGES + 8, 1);
        QueuePair qa = p[0];
        QueuePair qb = p[1];
        MemoryRegion src = a.reg(MESSAGES * SLOT);
        MemoryRegion readDst = a.reg(MESSAGES * SLOT);
        MemoryRegion atomicResults = a.reg(MESSAGES * 8);
        MemoryRegion recvBuf = b.reg(MESSAGES * SLOT);
        MemoryRegion writeDst = b.reg(MESSAGES * SLOT);
        MemoryRegion readSrc = b.reg(MESSAGES * SLOT);
        MemoryRegion counter = b.reg(8);
        RcOperationsTest.fill(src, seed);
        RcOperationsTest.fill(readSrc, seed + 1);

        WrOpcode[] ops = new WrOpcode[MESSAGES];
        int[] lens = new int[MESSAGES];
        int sends = 0;
        for (int i = 0; i < MESSAGES; i++) {
            int k = r.nextInt(10);
            ops[i] = k < 4 ? WrOpcode.SEND : k < 6 ? WrOpcode.RDMA_WRITE : k < 7 ? WrOpcode.RDMA_WRITE_WITH_IMM
                    : k < 9 ? WrOpcode.RDMA_READ : WrOpcode.ATOMIC_FETCH_AND_ADD;
            lens[i] = r.nextInt(4) == 0 ? r.nextInt(4) : r.nextInt(5 * MTU + 4);
            if (ops[i] == WrOpcode.SEND || ops[i] == WrOpcode.RDMA_WRITE_WITH_IMM) {
                b.postRecv(qb, 10_000 + i, recvBuf, i * SLOT, SLOT);
                sends++;
            }
        }
        for (int i = 0; i < MESSAGES; i++) {
            SendWorkRequest wr = new SendWorkRequest(1).wrId(i).opcode(ops[i]).sendFlags(SendFlag.SIGNALED.bit());
            switch (ops[i]) {
                case SEND:
                    wr.sge(src, i * SLOT, lens[i]);
                    break;
                case RDMA_WRITE:
                case RDMA_WRITE_WITH_IMM:
                    wr.sge(src, i * SLOT, lens[i]).remoteAddr(writeDst.addr() + (long) i * SLOT)
                            .rkey(writeDst.rkey()).immData(i);
                    break;
                case RDMA_READ:
                    wr.sge(readDst, i * SLOT, lens[i]).remoteAddr(readSrc.addr() + (long) i * SLOT)
                            .rkey(readSrc.rkey());
                    break;
                default:
                    wr.sge(atomicResults, i * 8, 8).remoteAddr(counter.addr()).rkey(counter.rkey()).compareAdd(1);
                    break;
            }
            qa.postSend(wr);
        }
        fabric.settle();
        System.out.println("  dropped=" + fabric.dropped() + " delivered=" + fabric.delivered() + " " + stats(a)
                + " | " + stats(b));

        List<WorkCompletion> sent = Node.poll(a.scq);
        assertThat(sent).as("send completions, seed %d", seed).hasSize(MESSAGES);
        long expectedAtomic = 0;
        for (int i = 0; i < MESSAGES; i++) {
            WorkCompletion wc = sent.get(i);
            assertThat(wc.wrId()).as("completion order, seed %d", seed).isEqualTo(i);
            assertThat(wc.status()).as("status of %d, seed %d", i, seed).isEqualTo(WcStatus.SUCCESS);
            if (ops[i] == WrOpcode.RDMA_READ) {
                assertThat(RcOperationsTest.bytes(readDst, i * SLOT, lens[i]))
                        .as("READ %d, seed %d", i, seed).isEqualTo(RcOperationsTest.bytes(readSrc, i * SLOT, lens[i]));
            } else if (ops[i] == WrOpcode.RDMA_WRITE || ops[i] == WrOpcode.RDMA_WRITE_WITH_IMM) {
                assertThat(RcOperationsTest.bytes(writeDst, i * SLOT, lens[i]))
                        .as("WRITE %d, seed %d", i, seed).isEqualTo(RcOperationsTest.bytes(src, i * SLOT, lens[i]));
            } else if (ops[i] == WrOpcode.ATOMIC_FETCH_AND_ADD) {
                // Executed exactly once each, in order: the returned values count up.
                assertThat(atomicResults.buffer().getLong(i * 8)).as("FETCH_ADD %d, seed %d", i, seed)
                        .isEqualTo(expectedAtomic++);
            }
        }
        assertThat(counter.buffer().getLong(0)).as("atomic target, seed %d", seed).isEqualTo(expectedAtomic);

        List<WorkCompletion> received = Node.poll(b.rcq);
        List<Long> expectedIds = new ArrayList<>();
        for (int i = 0; i < MESSAGES; i++) {
            if (ops[i] == WrOpcode.SEND || ops[i] == WrOpcode.RDMA_WRITE_WITH_IMM) {
                expectedIds.add(10_000L + i);
            }
        }
        assertThat(received).extracting(WorkCompletion::wrId).as("receive order, seed %d", seed)
                .containsExactlyElementsOf(expectedIds);
        for (WorkCompletion wc : received) {
            int i = (int) (wc.wrId() - 10_000);
            assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.byteLen()).as("byte_len of %d, seed %d", i, seed).isEqualTo(lens[i]);
            if (ops[i] == WrOpcode.SEND) {
                assertThat(wc.opcode()).isEqualTo(WcOpcode.RECV);
                assertThat(RcOperationsTest.bytes(recvBuf, i * SLOT, lens[i])).as("SEND %d, seed %d", i, seed)
                        .isEqualTo(RcOperationsTest.bytes(src, i * SLOT, lens[i]));
            } else {
                assertThat(wc.opcode()).isEqualTo(WcOpcode.RECV_RDMA_WITH_IMM);
                assertThat(wc.immData()).isEqualTo(i);
            }
        }
        assertThat(sends).isEqualTo(received.size());
        for (MemoryRegion mr : new MemoryRegion[] {src, readDst, atomicResults, recvBuf, writeDst, readSrc, counter}) {
            assertThat(Node.sgeRefs(mr)).as("references left on %s, seed %d", mr, seed).isZero();
        }
        if (loss > 0) {
            assertThat(a.counter(PortCounter.RC_RESENDS) + b.counter(PortCounter.RC_RESENDS)).isPositive();
        }
    }
}
