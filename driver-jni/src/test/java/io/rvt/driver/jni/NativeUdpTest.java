package io.rvt.driver.jni;

import static io.rvt.api.Errno.EADDRINUSE;
import static io.rvt.api.Errno.EADDRNOTAVAIL;
import static io.rvt.api.Errno.EINVAL;
import static io.rvt.api.Errno.EMSGSIZE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.Gid;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The socket layer: the library loads, batches go out and come in intact, and failures are clear exceptions. */
class NativeUdpTest {
    private static final long DEADLINE_NANOS = 20_000_000_000L;

    @Test
    void shouldLoadLibraryWithMatchingAbi() {
        assertThat(JniDriver.unavailabilityCause()).isNull();
        assertThat(JniDriver.isAvailable()).isTrue();
        assertThat(NativeUdp.loadedVia()).isNotNull();
        assertThat(NativeUdp.abiVersion()).isEqualTo(NativeUdp.ABI_VERSION);
        assertThat(NativeUdp.abiSize(0)).isEqualTo(NativeUdp.TX_DESC_SIZE);
        assertThat(NativeUdp.abiSize(1)).isEqualTo(NativeUdp.RX_DESC_SIZE);
        assertThat(NativeUdp.abiSize(4)).isEqualTo(NativeUdp.TX_SEGS);
        assertThat(NativeUdp.abiSize(99)).isEqualTo(-EINVAL.value());
        assertThat(NativeUdp.address(ByteBuffer.allocate(8))).as("a heap buffer has no address").isNegative();
    }

    @Test
    void shouldRefuseLibraryLoudlyWhenAbiDiffers() {
        NativeUdp.checkAbi(NativeUdp.ABI_VERSION, NativeUdp.TX_DESC_SIZE, NativeUdp.RX_DESC_SIZE, NativeUdp.MAX_BATCH);
        assertThatThrownBy(() -> NativeUdp.checkAbi(1, 128, 32, 64)).isInstanceOf(UnsatisfiedLinkError.class)
                .hasMessageContaining("library version 1, driver-jni expects " + NativeUdp.ABI_VERSION);
        assertThatThrownBy(() -> NativeUdp.checkAbi(NativeUdp.ABI_VERSION, 48, 32, 64)).isInstanceOf(UnsatisfiedLinkError.class)
                .hasMessageContaining("tx descriptor is 48 in the library, driver-jni expects 128");
        assertThatThrownBy(() -> NativeUdp.checkAbi(NativeUdp.ABI_VERSION, 128, 40, 64)).isInstanceOf(UnsatisfiedLinkError.class)
                .hasMessageContaining("rx descriptor is 40");
        assertThatThrownBy(() -> NativeUdp.checkAbi(NativeUdp.ABI_VERSION, 128, 32, 32)).isInstanceOf(UnsatisfiedLinkError.class)
                .hasMessageContaining("largest batch is 32");
    }

    /** 150 datagrams in batches, some gathered from two segments, arrive whole, in order, from the sender's port. */
    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "::1"})
    void shouldSendAndReceiveBatchesWhenSegmentsAreGathered(String host) throws Exception {
        InetAddress local = InetAddress.getByName(host);
        try (Datagrams a = new NativeDatagrams(local, 0, 1 << 20);
                Datagrams b = new NativeDatagrams(local, 0, 1 << 20)) {
            exchange(a, b, local);
        }
    }

    /** The JDK layer passes the same exchange, so the driver above it sees no difference. */
    @Test
    void shouldSendAndReceiveBatchesOverJdkLayer() throws Exception {
        InetAddress local = InetAddress.getByName("127.0.0.1");
        try (Datagrams a = new JdkDatagrams(local, 0, 1 << 20); Datagrams b = new JdkDatagrams(local, 0, 1 << 20)) {
            exchange(a, b, local);
        }
    }

    private static void exchange(Datagrams a, Datagrams b, InetAddress local) {
        boolean gather = a instanceof NativeDatagrams;
        int total = 150;
        Peer toB = new Peer(Peer.gidOf(local), b.localPort());
        TxBatch tx = new TxBatch(32, 2048);
        ByteBuffer second = ByteBuffer.allocateDirect(1024);
        for (int i = 0; i < second.capacity(); i++) {
            second.put(i, (byte) (0xA0 ^ i));
        }
        long secondAddress = NativeUdp.address(second);
        SplittableRandom r = new SplittableRandom(7);
        int[] lens = new int[total];
        int[] extra = new int[total];
        for (int i = 0; i < total; i++) {
            if (tx.isFull()) {
                assertThat(a.send(tx)).isZero();
            }
            lens[i] = 4 + r.nextInt(1500);
            extra[i] = gather && i % 3 == 0 ? 1 + r.nextInt(1000) : 0;
            int off = tx.nextOffset();
            tx.data.putInt(off, i);
            for (int k = 4; k < lens[i]; k++) {
                tx.data.put(off + k, (byte) (i + k));
            }
            tx.addGather(toB, lens[i], extra[i] > 0 ? secondAddress : 0, extra[i], 0);
        }
        assertThat(a.send(tx)).isZero();
        assertThat(tx.count).isZero();

        RxBatch rx = new RxBatch(16, 4096);
        int got = 0;
        long deadline = System.nanoTime() + DEADLINE_NANOS;
        while (got < total) {
            int n = b.receive(rx);
            if (n == 0) {
                assertThat(System.nanoTime()).as("received %d of %d", got, total).isLessThan(deadline);
                b.await(10);
                continue;
            }
            for (int i = 0; i < n; i++, got++) {
                int off = rx.offset(i);
                assertThat(rx.data.getInt(off)).as("sequence").isEqualTo(got);
                assertThat(rx.length(i)).isEqualTo(lens[got] + extra[got]);
                assertThat(rx.truncated(i)).isFalse();
                assertThat(rx.sourcePort(i)).isEqualTo(a.localPort());
                for (int k = 4; k < lens[got]; k++) {
                    assertThat(rx.data.get(off + k)).isEqualTo((byte) (got + k));
                }
                for (int k = 0; k < extra[got]; k++) {
                    assertThat(rx.data.get(off + lens[got] + k)).isEqualTo((byte) (0xA0 ^ k));
                }
                Gid src = rx.sourceIsIpv6(i) ? Gid.of(rx.sourceHi(i), rx.sourceLo(i))
                        : Gid.ipv4Mapped(rx.sourceV4(i));
                assertThat(src).isEqualTo(Peer.gidOf(local));
            }
        }
        assertThat(b.receive(rx)).as("nothing more").isZero();
    }

    /** A datagram the kernel refuses in the middle of a batch is dropped and counted; the rest still go out. */
    @ParameterizedTest
    @EnumSource(Wire.class)
    void shouldDropRefusedDatagramAndSendTheRest(Wire wire) throws Exception {
        InetAddress local = InetAddress.getByName("127.0.0.1");
        try (Datagrams a = Datagrams.open(wire, local, 0, 1 << 20); Datagrams b = Datagrams.open(wire, local, 0, 0)) {
            Peer toB = new Peer(Peer.gidOf(local), b.localPort());
            TxBatch tx = new TxBatch(3, 70_000);
            for (int i = 0; i < 3; i++) {
                tx.data.putInt(tx.nextOffset(), i);
                tx.add(toB, i == 1 ? 66_000 : 100); // 66000 > 65507, the largest IPv4 UDP payload: EMSGSIZE
            }
            assertThat(a.send(tx)).as("dropped").isEqualTo(1);
            if (wire == Wire.NATIVE) {
                assertThat(a.lastErrno()).isEqualTo(EMSGSIZE.value());
            }
            RxBatch rx = new RxBatch(4, 2048);
            int got = 0;
            long deadline = System.nanoTime() + DEADLINE_NANOS;
            int[] seen = new int[2];
            while (got < 2) {
                int n = b.receive(rx);
                for (int i = 0; i < n; i++) {
                    seen[got++] = rx.data.getInt(rx.offset(i));
                }
                if (n == 0) {
                    assertThat(System.nanoTime()).isLessThan(deadline);
                    b.await(10);
                }
            }
            assertThat(seen).containsExactly(0, 2);
        }
    }

    /** A socket closed under a busy sender: the sender's batches are dropped from then on, nothing throws. */
    @Test
    void shouldDropBatchesWhenClosedUnderSender() throws Exception {
        InetAddress local = InetAddress.getByName("127.0.0.1");
        Datagrams b = new NativeDatagrams(local, 0, 0);
        Datagrams a = new NativeDatagrams(local, 0, 0);
        Peer toB = new Peer(Peer.gidOf(local), b.localPort());
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean refused = new AtomicBoolean();
        CountDownLatch sending = new CountDownLatch(1);
        Thread sender = new Thread(() -> {
            TxBatch tx = new TxBatch(8, 256);
            RxBatch rx = new RxBatch(8, 256);
            try {
                while (!refused.get()) {
                    for (int i = 0; i < 8; i++) {
                        tx.add(toB, 64);
                    }
                    refused.set(a.send(tx) == 8 && a.receive(rx) == 0);
                    b.receive(rx);
                    sending.countDown();
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        sender.start();
        sending.await();
        a.close();
        sender.join(DEADLINE_NANOS / 1_000_000);
        b.close();
        assertThat(sender.isAlive()).isFalse();
        assertThat(failure.get()).isNull();
        assertThat(refused.get()).isTrue();
    }

    @Test
    void shouldFlagDatagramWhenLongerThanSlot() throws Exception {
        InetAddress local = InetAddress.getByName("127.0.0.1");
        try (Datagrams a = new NativeDatagrams(local, 0, 0); Datagrams b = new NativeDatagrams(local, 0, 0)) {
            TxBatch tx = new TxBatch(1, 2048);
            tx.add(new Peer(Peer.gidOf(local), b.localPort()), 1000);
            a.send(tx);
            RxBatch rx = new RxBatch(1, 256);
            long deadline = System.nanoTime() + DEADLINE_NANOS;
            while (b.receive(rx) == 0) {
                assertThat(System.nanoTime()).isLessThan(deadline);
                b.await(10);
            }
            assertThat(rx.truncated(0)).isTrue();
            assertThat(rx.length(0)).isEqualTo(256);
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void shouldNameErrnoAndAddressWhenPortIsInUse(Wire wire) throws Exception {
        InetAddress local = InetAddress.getByName("127.0.0.1");
        try (Datagrams first = Datagrams.open(wire, local, 0, 0)) {
            int port = first.localPort();
            assertThatThrownBy(() -> Datagrams.open(wire, local, port, 0))
                    .isInstanceOfSatisfying(UdpException.class, e -> {
                        assertThat(e.errno()).isEqualTo(EADDRINUSE.value());
                        assertThat(e.errnoName()).isEqualTo("EADDRINUSE");
                        assertThat(e.address()).isEqualTo("127.0.0.1:" + port);
                        assertThat(e.operation()).isEqualTo("bind");
                    })
                    .hasMessageContaining("bind 127.0.0.1:" + port + " failed: EADDRINUSE (98");
        }
    }

    @Test
    void shouldNameErrnoAndAddressWhenAddressIsNotLocal() {
        // 192.0.2.1 (TEST-NET-1) belongs to no interface here.
        assertThatThrownBy(() -> JniDriver.builder().address("192.0.2.1").udpPort(0).build())
                .isInstanceOfSatisfying(UdpException.class,
                        e -> assertThat(e.errno()).isEqualTo(EADDRNOTAVAIL.value()))
                .hasMessageContaining("192.0.2.1:0").hasMessageContaining("EADDRNOTAVAIL");
    }

    @Test
    void shouldRefuseBadConfigurationWithNamedValue() {
        assertThatThrownBy(() -> JniDriver.builder().address("not an address!"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not an address!");
        assertThatThrownBy(() -> JniDriver.builder().udpPort(70000))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("70000");
        assertThatThrownBy(() -> JniDriver.builder().address("0.0.0.0"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0.0.0.0");
        assertThatThrownBy(() -> JniDriver.builder().build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("address");
        assertThatThrownBy(() -> JniDriver.builder().address("fe80::1"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("fe80::1%<interface>");
        assertThatThrownBy(() -> JniDriver.builder().batch(65))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("65");
        assertThatThrownBy(() -> JniDriver.builder().peer("::ffff:10.0.0.1", 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("peer UDP port");
    }

    @Test
    void shouldStopThreadsAndFreePortWhenUnregistered() throws Exception {
        JniDriver d = JniDriver.builder().address("127.0.0.1").address("::1").udpPort(0).name("closing").build();
        int port = d.localPort(1);
        io.rvt.core.RvtDevice dev = io.rvt.core.RvtDevice.register(d);
        assertThat(engineThreads()).as("one engine per port").isEqualTo(2);
        assertThat(dev.queryGid(1, 0)).isEqualTo(Gid.ipv4Mapped(0x7F00_0001));
        assertThat(dev.queryGid(2, 0)).isEqualTo(Gid.of(0, 1));
        assertThat(dev.queryPort(2, new io.rvt.api.PortAttr()).state()).isEqualTo(io.rvt.api.PortState.ACTIVE);
        dev.unregister();
        assertThat(engineThreads()).as("no engine thread left").isZero();
        d.close(); // idempotent
        // The port is free again: a new socket can take it.
        try (Datagrams again = new NativeDatagrams(InetAddress.getByName("127.0.0.1"), port, 0)) {
            assertThat(again.localPort()).isEqualTo(port);
        }
    }

    private static long engineThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("rvt-jni-closing-")).count();
    }
}
