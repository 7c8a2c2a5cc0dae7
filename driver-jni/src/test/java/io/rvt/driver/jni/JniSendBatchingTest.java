package io.rvt.driver.jni;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.CompletionQueue;
import io.rvt.api.Device;
import io.rvt.api.PortCounter;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.Verbs;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The send path's system-call economy: {@link SocketCalls} counts every {@code sendmmsg}/{@code recvmmsg} and the
 * datagrams they move; with the progress hook a polling thread's posts are sent in batches at its next progress of
 * any HCA (the in-process ping-pong's pattern: post on one, poll the other), and what a thread that never polls again
 * left is sent by the port's backstop. Not timed: counters say who sent what.
 */
@Timeout(120)
class JniSendBatchingTest {
    private static final long DEADLINE = Verbs.DEADLINE_NANOS;

    @Test
    void shouldCountEverySocketCallAndDatagramWhenTheCallerRunsTheEngines() throws Exception {
        try (JniFixture f = new JniFixture(3, "127.0.0.1", true, Wire.NATIVE); Verbs verbs = new Verbs(f)) {
            Device[] dev = f.openWithoutEngine(2); // this thread runs both engines (doWork)
            JniDriver a = f.drivers().get(0);
            JniDriver b = f.drivers().get(1);
            Endpoint[] p = verbs.connected(dev[0], dev[1], QpType.RC, 4096, 7, 1);
            int messages = 40; // one drain: batches of 32 datagrams
            for (int i = 0; i <= messages; i++) {
                p[1].qp.postRecv(new RecvWorkRequest(1).wrId(i).sge(p[1].mr, 0, 64));
            }
            // one message first: its ACK tells a's requester the responder's credits (the receives posted)
            p[0].qp.postSend(new SendWorkRequest(1).wrId(99).opcode(WrOpcode.SEND).sendFlags(SendFlag.SIGNALED.bit())
                    .sge(p[0].mr, 0, 64));
            verbs.await(p[1].recvCq, 1);
            verbs.await(p[0].sendCq, 1);
            quiesce(a, b);
            SocketCalls a0 = a.statistics(1).socketCalls();
            SocketCalls b0 = b.statistics(1).socketCalls();
            long aTx0 = dev[0].portCounter(1, PortCounter.TX_PACKETS);
            long bTx0 = dev[1].portCounter(1, PortCounter.TX_PACKETS);
            long bRx0 = dev[1].portCounter(1, PortCounter.RX_PACKETS);

            SendWorkRequest list = null;
            for (int i = messages - 1; i >= 0; i--) {
                list = new SendWorkRequest(1).wrId(i).opcode(WrOpcode.SEND).sendFlags(SendFlag.SIGNALED.bit())
                        .sge(p[0].mr, 0, 64).next(list);
            }
            p[0].qp.postSend(list); // queued: this thread is a's engine, which drains it in its next cycle
            a.doWork();
            SocketCalls sent = a.statistics(1).socketCalls().minus(a0);
            long n = sent.datagramsSent(); // what the requester's windows let out (33 here: more than one batch)
            assertThat(n).isEqualTo(dev[0].portCounter(1, PortCounter.TX_PACKETS) - aTx0).isBetween(2L, 40L);
            assertThat(sent.sendCalls()).as("sendmmsg calls in batches of 32").isEqualTo((n + 31) / 32);
            assertThat(sent.receiveCalls()).as("the cycle's one recvmmsg").isEqualTo(1);
            assertThat(sent.emptyReceives()).isEqualTo(1);

            verbs.await(p[1].recvCq, messages);
            verbs.await(p[0].sendCq, messages);
            quiesce(a, b);
            SocketCalls ra = a.statistics(1).socketCalls().minus(a0);
            SocketCalls rb = b.statistics(1).socketCalls().minus(b0);
            assertThat(ra.datagramsSent()).isEqualTo(dev[0].portCounter(1, PortCounter.TX_PACKETS) - aTx0);
            assertThat(rb.datagramsReceived()).isEqualTo(dev[1].portCounter(1, PortCounter.RX_PACKETS) - bRx0)
                    .isEqualTo(messages);
            // b sent nothing but ACKs, each one datagram a received
            assertThat(rb.acksSent()).isPositive().isLessThanOrEqualTo(messages)
                    .isEqualTo(rb.datagramsSent()).isEqualTo(dev[1].portCounter(1, PortCounter.TX_PACKETS) - bTx0)
                    .isEqualTo(ra.datagramsReceived());
            assertThat(ra.acksSent()).isZero();
            assertThat(rb.sendCalls()).isPositive().isLessThanOrEqualTo(rb.datagramsSent());
            assertThat(rb.receiveCalls() - rb.emptyReceives()).as("receives that returned datagrams").isPositive()
                    .isLessThanOrEqualTo(rb.datagramsReceived());

            SocketCalls idle = b.statistics(1).socketCalls();
            for (int i = 0; i < 5; i++) {
                b.doWork();
            }
            SocketCalls five = b.statistics(1).socketCalls().minus(idle);
            assertThat(five.receiveCalls()).isEqualTo(5);
            assertThat(five.emptyReceives()).isEqualTo(5);
            assertThat(five.sendCalls()).isZero();

            sendJunk(b, 3);
            long deadline = System.nanoTime() + DEADLINE;
            while (b.statistics(1).malformed() < 3 && System.nanoTime() - deadline < 0) {
                b.doWork();
            }
            SocketCalls junk = b.statistics(1).socketCalls().minus(idle);
            assertThat(junk.datagramsReceived()).isEqualTo(3);
            assertThat(junk.receiveCalls() - junk.emptyReceives()).isBetween(1L, 3L);
        }
    }

    @Test
    void shouldSendAPollersPostAtItsPollOfTheOtherHcaWithoutTheBackstopWhenPingPongingInOneThread()
            throws Exception {
        // backstops that wait a minute: only this thread's polls can move the ping-pong along
        try (JniFixture f = withQuietBackstops(4);
                Verbs verbs = new Verbs(f)) {
            Device[] dev = f.open(2);
            JniDriver a = f.drivers().get(0);
            JniDriver b = f.drivers().get(1);
            Endpoint[] p = connectWhileProgressing(verbs, dev, a, b);
            long deadline;
            long backstops0 = a.port(1).backstopWork() + b.port(1).backstopWork();
            SocketCalls a0 = a.statistics(1).socketCalls();
            int iterations = 300;
            WorkCompletion wc = new WorkCompletion();
            deadline = System.nanoTime() + DEADLINE;
            for (int i = 0; i < iterations; i++) {
                p[1].qp.postRecv(new RecvWorkRequest(1).wrId(i).sge(p[1].mr, 0, 64));
                p[0].qp.postRecv(new RecvWorkRequest(1).wrId(i).sge(p[0].mr, 0, 64));
                p[0].qp.postSend(new SendWorkRequest(1).wrId(i).opcode(WrOpcode.SEND).sge(p[0].mr, 0, 8));
                awaitOne(p[1].recvCq, wc, deadline); // polls only b: its progress sends a's post
                p[1].qp.postSend(new SendWorkRequest(1).wrId(i).opcode(WrOpcode.SEND).sge(p[1].mr, 0, 8));
                awaitOne(p[0].recvCq, wc, deadline); // polls only a: its progress sends b's post
                drain(p[0].sendCq, wc);
                drain(p[1].sendCq, wc);
            }
            assertThat(a.statistics(1).socketCalls().minus(a0).datagramsSent()).isGreaterThanOrEqualTo(iterations);
            assertThat(a.port(1).backstopWork() + b.port(1).backstopWork() - backstops0)
                    .as("duty cycles the backstops ran").isZero();
        }
    }

    @Test
    void shouldSendAPollersFirstPostAtOnceAndItsNextAtItsNextProgress() throws Exception {
        // backstops that wait a minute: only this thread runs the engines
        try (JniFixture f = withQuietBackstops(6);
                Verbs verbs = new Verbs(f)) {
            Device[] dev = f.open(2);
            JniDriver a = f.drivers().get(0);
            JniDriver b = f.drivers().get(1);
            Endpoint[] p = connectWhileProgressing(verbs, dev, a, b);
            int rounds = 15;
            for (int i = 0; i <= 3 * rounds; i++) {
                p[1].qp.postRecv(new RecvWorkRequest(1).wrId(i).sge(p[1].mr, 0, 64));
            }
            // one message first: its ACK tells a's requester the responder's credits (the receives posted)
            p[0].qp.postSend(new SendWorkRequest(1).wrId(0).opcode(WrOpcode.SEND).sendFlags(SendFlag.SIGNALED.bit())
                    .sge(p[0].mr, 0, 8));
            verbs.await(p[1].recvCq, 1);
            verbs.await(p[0].sendCq, 1);
            // A poller's first post goes out at once, always; its next two wait for its next progress unless the
            // first took longer than a poller's interval (a cold JIT): try until they waited.
            boolean left = false;
            for (int round = 0; round < rounds && !left; round++) {
                b.progress(1); // this thread is a poller
                SocketCalls a0 = a.statistics(1).socketCalls();
                p[0].qp.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.SEND).sge(p[0].mr, 0, 8));
                assertThat(a.statistics(1).socketCalls().minus(a0).datagramsSent())
                        .as("the first post after a progress, at once")
                        .isEqualTo(1);
                assertThat(a.port(1).queue.isEmpty()).isTrue();
                p[0].qp.postSend(new SendWorkRequest(1).wrId(2).opcode(WrOpcode.SEND).sge(p[0].mr, 0, 8));
                p[0].qp.postSend(new SendWorkRequest(1).wrId(3).opcode(WrOpcode.SEND).sge(p[0].mr, 0, 8));
                if (!a.port(1).queue.isEmpty()) {
                    left = true;
                    assertThat(a.statistics(1).socketCalls().minus(a0).datagramsSent())
                            .as("the next two, left to the next progress").isEqualTo(1);
                    b.progress(1); // pays what this thread owes a: the two leave in one sendmmsg
                    SocketCalls sent = a.statistics(1).socketCalls().minus(a0);
                    assertThat(sent.datagramsSent()).isEqualTo(3);
                    assertThat(sent.sendCalls()).isEqualTo(2);
                }
                WorkCompletion wc = new WorkCompletion();
                long deadline = System.nanoTime() + DEADLINE;
                for (int got = 0; got < 3; ) {
                    if (p[1].recvCq.pollCq(wc)) { // b's empty polls run b's engine (and pay what this thread owes)
                        Verbs.assertSuccess(wc, wc.wrId());
                        got++;
                    } else {
                        a.progress(256); // a's engine too, for the ACKs that return its credits
                        assertThat(System.nanoTime() - deadline).as("the round's receives in time").isNegative();
                    }
                }
            }
            assertThat(left).as("posts left to the next progress").isTrue();
        }
    }

    @Test
    void shouldAskTheSocketOnceWhenAProgressReceivesLessThanABatch() throws Exception {
        try (JniFixture f = withQuietBackstops(8)) {
            f.open(2);
            JniDriver b = f.drivers().get(1);
            for (int round = 0; round < 3; round++) {
                SocketCalls b0 = b.statistics(1).socketCalls();
                long malformed0 = b.statistics(1).malformed();
                sendJunk(b, 3); // on loopback in the socket's queue when the send returns
                b.progress(256);
                SocketCalls r = b.statistics(1).socketCalls().minus(b0);
                assertThat(r.datagramsReceived()).isEqualTo(3);
                assertThat(b.statistics(1).malformed() - malformed0).isEqualTo(3);
                // the cycle that did work is followed by one more (the progress loop), which does not ask the socket
                // again: it had just been emptied
                assertThat(r.receiveCalls()).as("recvmmsg calls").isEqualTo(1);
                assertThat(r.emptyReceives()).isZero();
                b.progress(256); // a new progress call asks again
                assertThat(b.statistics(1).socketCalls().minus(b0).emptyReceives()).isEqualTo(1);
            }
        }
    }

    @Test
    void shouldSendAPollersUdPostWhenItsQpIsDestroyedRightAfter() throws Exception {
        // backstops that wait a minute: a post left to this thread's next progress would be flushed by the destroy
        try (JniFixture f = withQuietBackstops(7);
                Verbs verbs = new Verbs(f)) {
            Device[] dev = f.open(2);
            JniDriver b = f.drivers().get(1);
            Endpoint sender = verbs.endpoint(dev[0], QpType.UD, 4096);
            Endpoint receiver = verbs.endpoint(dev[1], QpType.UD, 4096);
            int qkey = 0x11111111;
            verbs.activateUd(sender, qkey);
            verbs.activateUd(receiver, qkey);
            receiver.qp.postRecv(new RecvWorkRequest(1).wrId(5).sge(receiver.mr, 0, 4096));
            b.progress(1); // this thread is a poller
            sender.qp.postSend(new SendWorkRequest(1).wrId(5).opcode(WrOpcode.SEND).sge(sender.mr, 0, 100)
                    .ah(Verbs.ah(sender, receiver)).remoteQpn(receiver.qp.qpNum()).remoteQkey(qkey));
            sender.qp.destroyQp();
            Verbs.assertSuccess(verbs.await(receiver.recvCq, 1).get(0), 5);
        }
    }

    @Test
    void shouldSendWhatAPollerLeftWhenItNeverPollsAgain() throws Exception {
        try (JniFixture f = new JniFixture(5, "127.0.0.1"); Verbs verbs = new Verbs(f)) {
            Device[] dev = f.open(2);
            JniDriver a = f.drivers().get(0);
            JniDriver b = f.drivers().get(1);
            Endpoint[] p = verbs.connected(dev[0], dev[1], QpType.RC, 4096, 7, 1);
            int tries = 30;
            for (int i = 0; i < 2 * tries; i++) {
                p[1].qp.postRecv(new RecvWorkRequest(1).wrId(i).sge(p[1].mr, 0, 64));
            }
            long backstop0 = a.port(1).backstopWork();
            AtomicInteger posted = new AtomicInteger();
            AtomicInteger left = new AtomicInteger();
            // A poller of b posts twice on a and ends without progressing again: its first post goes out at once, the
            // second is left to its next progress (a's queue holds it) unless it was slower than a poller; it tries
            // until one post was left.
            Thread poller = new Thread(() -> {
                for (int i = 0; i < tries && left.get() == 0; i++) {
                    b.progress(1);
                    p[0].qp.postSend(new SendWorkRequest(1).wrId(i).opcode(WrOpcode.SEND).sge(p[0].mr, 0, 8));
                    p[0].qp.postSend(new SendWorkRequest(1).wrId(i).opcode(WrOpcode.SEND).sge(p[0].mr, 0, 8));
                    posted.addAndGet(2);
                    if (!a.port(1).queue.isEmpty()) {
                        left.incrementAndGet();
                    }
                }
            }, "poster-that-stops");
            poller.start();
            poller.join();
            assertThat(left.get()).as("posts left to the poster's next progress").isEqualTo(1);
            // this thread polls only b's CQ (b's engine): a's backstop must send what the poster left
            verbs.await(p[1].recvCq, posted.get());
            long deadline = System.nanoTime() + DEADLINE;
            while (a.port(1).backstopWork() == backstop0 && System.nanoTime() - deadline < 0) {
                Thread.onSpinWait();
            }
            assertThat(a.port(1).backstopWork()).as("cycles a's backstop ran").isGreaterThan(backstop0);
        }
    }

    /** Two loopback HCAs whose backstops wait a minute: only the test's thread moves anything along. */
    private static JniFixture withQuietBackstops(int seed) {
        return new JniFixture(seed, "127.0.0.1").backstopQuietNanos(TimeUnit.SECONDS.toNanos(60));
    }

    /**
     * An RC pair connected while this thread runs both engines (the backstops may wait a minute): the kit connects it
     * by modify_qp, which sends nothing, but a connector that exchanges messages (rvt-cm's) needs the engines run.
     */
    private static Endpoint[] connectWhileProgressing(Verbs verbs, Device[] dev, JniDriver a, JniDriver b)
            throws Exception {
        CompletableFuture<Endpoint[]> connect = CompletableFuture.supplyAsync(
                () -> verbs.connected(dev[0], dev[1], QpType.RC, 4096, 7, 1));
        long deadline = System.nanoTime() + DEADLINE;
        while (!connect.isDone() && System.nanoTime() - deadline < 0) {
            a.progress(256); // a connector's messages need someone to run the engines
            b.progress(256);
        }
        return connect.get(1, TimeUnit.SECONDS);
    }

    private static void awaitOne(CompletionQueue cq, WorkCompletion wc, long deadline) {
        while (!cq.pollCq(wc)) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("no completion on " + cq + " within the deadline");
            }
        }
        Verbs.assertSuccess(wc, wc.wrId());
    }

    private static void drain(CompletionQueue cq, WorkCompletion wc) {
        while (cq.pollCq(wc)) {
            Verbs.assertSuccess(wc, wc.wrId());
        }
    }

    /** Runs both engines until a round of cycles finds nothing to do. */
    private static void quiesce(JniDriver a, JniDriver b) {
        int idle = 0;
        long deadline = System.nanoTime() + DEADLINE;
        while (idle < 3 && System.nanoTime() - deadline < 0) {
            idle = a.doWork() + b.doWork() == 0 ? idle + 1 : 0;
        }
    }

    private static void sendJunk(JniDriver d, int n) throws Exception {
        InetAddress local = InetAddress.getByName("127.0.0.1");
        try (DatagramSocket s = new DatagramSocket(0, local)) {
            byte[] junk = new byte[100];
            for (int i = 0; i < n; i++) {
                s.send(new DatagramPacket(junk, junk.length, local, d.localPort(1)));
            }
        }
    }
}
