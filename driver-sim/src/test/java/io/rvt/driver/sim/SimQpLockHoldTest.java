package io.rvt.driver.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WrOpcode;
import io.rvt.api.spi.agent.Agent;
import io.rvt.api.spi.agent.CompositeAgent;
import io.rvt.api.spi.agent.ThreadingMode;
import io.rvt.core.RvtDevice;
import io.rvt.core.qp.RvtQp;
import io.rvt.driver.sim.fabric.Fabric;
import io.rvt.driver.sim.fabric.FabricPort;
import io.rvt.driver.sim.fabric.Frame;
import io.rvt.driver.sim.fabric.FrameHandler;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.Verbs;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * On a real-time fabric a delivery batch's run of packets to one RC QP takes the QP's {@code recvLock} once
 * ({@code LockPolicy.recvLockOverRuns}) and a drain its QP's {@code sendLock} once per train of packets
 * ({@code LockPolicy.sendLockOverDrains}): the holds end with the run and the drain, and a thread that wants the locks
 * meanwhile gets them once the fabric's cycle is over.
 */
class SimQpLockHoldTest {
    private static final AtomicInteger FABRICS = new AtomicInteger();
    private Fabric fabric;
    private RvtDevice a;
    private RvtDevice b;
    private SimDriver hcaB;
    private Agent network;
    private Verbs verbs;
    private Endpoint[] pair;
    private RvtQp sender;
    private RvtQp receiver;

    /**
     * What the delivery thread holds when each frame reaches b's HCA and when its batch has ended; and what the thread
     * that asks whether b takes bursts holds: the sender's drain asks it ({@code Fabric.burstLimit}) in its first
     * {@code sendPacket} after a handler changed, before the transport makes the packet.
     */
    private static final class Watch implements FrameHandler {
        private final FrameHandler hca;
        private final RvtQp qp;
        private final RvtQp sender;
        final List<Boolean> heldBeforeFrame = new ArrayList<>();
        final List<Boolean> heldAfterBatch = new ArrayList<>();
        final List<Boolean> senderHeldAtBurstQuestion = new ArrayList<>();

        Watch(FrameHandler hca, RvtQp qp, RvtQp sender) {
            this.hca = hca;
            this.qp = qp;
            this.sender = sender;
        }

        @Override
        public void onFrame(Frame frame) {
            heldBeforeFrame.add(qp.recvLock().isHeldByCurrentThread());
            hca.onFrame(frame);
        }

        @Override
        public boolean acceptsDeferredBytes() {
            return hca.acceptsDeferredBytes();
        }

        @Override
        public boolean acceptsBursts() {
            senderHeldAtBurstQuestion.add(sender.sendLock().isHeldByCurrentThread()); // then a train's delivery asks
            return hca.acceptsBursts();
        }

        @Override
        public void onBatchEnd() {
            hca.onBatchEnd();
            heldAfterBatch.add(qp.recvLock().isHeldByCurrentThread());
        }
    }

    private void open() {
        fabric = Fabric.builder("lock-hold-" + FABRICS.incrementAndGet()).realTime().threading(ThreadingMode.INVOKER)
                .build();
        SimDriver hcaA = SimDriver.builder(fabric).name("a").threading(ThreadingMode.INVOKER).build();
        hcaB = SimDriver.builder(fabric).name("b").threading(ThreadingMode.INVOKER).build();
        network = new CompositeAgent("lock-hold-net", List.of(fabric.agent(), hcaA.sendAgent(), hcaB.sendAgent()));
        a = RvtDevice.register(hcaA);
        b = RvtDevice.register(hcaB);
        verbs = new Verbs(new InvokedFixture(this::cycle));
        pair = verbs.connected(a, b, QpType.RC, 4096, 7, 1);
        sender = (RvtQp) pair[0].qp;
        receiver = (RvtQp) pair[1].qp;
        while (cycle() > 0) {
            // whatever the connection left in flight
        }
        for (int i = 0; i < 64; i++) {
            pair[1].qp.postRecv(new RecvWorkRequest(1).wrId(i).sge(pair[1].mr, 64 * (i % 32), 64));
        }
        post(1); // its ACK tells the requester of the receives (RC credits)
        verbs.await(pair[1].recvCq, 1);
        verbs.await(pair[0].sendCq, 1);
        while (cycle() > 0) {
            // the ACK's frame
        }
    }

    private int cycle() {
        try {
            return network.doWork();
        } catch (Exception e) {
            throw new AssertionError("a duty cycle failed", e);
        }
    }

    private void post(int messages) {
        for (int i = 0; i < messages; i++) {
            pair[0].qp.postSend(new SendWorkRequest(1).wrId(i).opcode(WrOpcode.SEND).sge(pair[0].mr, 64 * (i % 32), 64));
        }
    }

    private int received() {
        return InvokedFixture.pollSuccesses(pair[1].recvCq);
    }

    @AfterEach
    void tearDown() {
        InvokedFixture.tearDown(verbs, a, b, fabric);
    }

    @Test
    void shouldHoldTheReceivingQpsRecvLockFromARunsFirstPacketToItsBatchsEndAndTheSendersSendLockOverItsDrain() {
        open();
        FabricPort port = hcaB.fabricPort(1);
        Watch watch = new Watch(port.handler(), receiver, sender);
        port.handler(watch);
        post(1); // drained on this thread: one frame
        post(4); // queued: the cycle's drain sends them as a train behind it, all delivered in that cycle
        cycle();
        assertThat(watch.heldBeforeFrame).as("recvLock held by the delivery thread as each request arrives")
                .containsExactly(false, true, true, true, true);
        assertThat(watch.heldAfterBatch).as("and once the batch ended").containsExactly(false);
        assertThat(watch.senderHeldAtBurstQuestion).as("the sender's sendLock held by its drain around sendPacket")
                .first().isEqualTo(true);
        assertThat(receiver.recvLock().isLocked()).isFalse();
        assertThat(received()).isEqualTo(5);
        assertThat(verbs.await(pair[0].sendCq, 5)).hasSize(5);
    }

    @Test
    @Timeout(60)
    void shouldLeaveNeitherLockHeldAndLetAnotherThreadTakeThemBetweenCyclesOfAStream() throws Exception {
        open();
        int total = 0;
        for (int round = 0; round < 20; round++) {
            post(40); // the first drained here, the other 39 in the cycle: two holds of sendLock (SEND_LOCK_PACKETS)
            while (cycle() > 0) {
                // requests, ACKs
            }
            assertThat(sender.sendLock().isLocked()).as("sender's sendLock after round %d", round).isFalse();
            assertThat(sender.recvLock().isLocked()).as("sender's recvLock (its ACKs)").isFalse();
            assertThat(receiver.recvLock().isLocked()).as("receiver's recvLock").isFalse();
            assertThat(receiver.sendLock().isLocked()).as("receiver's sendLock (its ACK's drain)").isFalse();
            // another thread takes both QPs' locks in rdmavt's order, as modify_qp and deregMr do
            CompletableFuture<Void> other = CompletableFuture.runAsync(() -> {
                for (RvtQp qp : new RvtQp[] {sender, receiver}) {
                    qp.recvLock().lock();
                    qp.sendLock().lock();
                    qp.sendLock().unlock();
                    qp.recvLock().unlock();
                }
            });
            other.get(30, TimeUnit.SECONDS);
            total += received();
            for (int i = 0; i < 40; i++) {
                pair[1].qp.postRecv(new RecvWorkRequest(1).wrId(i).sge(pair[1].mr, 64 * (i % 32), 64));
            }
            InvokedFixture.pollSuccesses(pair[0].sendCq);
        }
        assertThat(total).isEqualTo(20 * 40);
    }
}
