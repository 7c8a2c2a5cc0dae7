package io.rvt.driver.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.Device;
import io.rvt.api.PortCounter;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.WcStatus;
import io.rvt.core.RvtDevice;
import io.rvt.driver.sim.fabric.FabricPort;
import io.rvt.driver.sim.fabric.Frame;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.Verbs;
import io.rvt.transport.header.BthDescriptor;
import io.rvt.transport.header.DethDescriptor;
import io.rvt.transport.header.GrhDescriptor;
import io.rvt.transport.header.Icrc;
import io.rvt.transport.header.LrhDescriptor;
import io.rvt.transport.header.Opcode;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Frames that are not valid packets are dropped and counted by the simulated HCA, never thrown. */
class SimMalformedPacketTest {
    private static final long SEED = 0xBADF00DL;
    private SimFixture fixture;
    private Device dev;
    private FabricPort raw;
    private Endpoint ud;

    @BeforeEach
    void setUp() {
        fixture = new SimFixture(SEED, true);
        dev = fixture.open(1)[0];
        raw = fixture.fabric().newPort().name("raw").handler(f -> f.release()).attach();
        Verbs verbs = new Verbs(fixture);
        ud = verbs.endpoint(dev, QpType.UD, 4096);
        verbs.activateUd(ud, 0x77);
    }

    @AfterEach
    void tearDown() {
        fixture.close();
    }

    private long malformed() {
        return dev.portCounter(1, PortCounter.RX_MALFORMED);
    }

    /** A well-formed UD SEND_ONLY to {@code qpn} with an 8-byte payload; returns its length. */
    private int udPacket(ByteBuffer b, int opcode, int qpn) {
        return udPacketTo(b, fixture.drivers().get(0), opcode, qpn);
    }

    /** As {@link #udPacket}, addressed to {@code dst}'s port 1. */
    private int udPacketTo(ByteBuffer b, SimDriver dst, int opcode, int qpn) {
        int payload = 8;
        int n = BthDescriptor.LENGTH + DethDescriptor.LENGTH + payload;
        int total = LrhDescriptor.LENGTH + GrhDescriptor.LENGTH + n + Icrc.LENGTH;
        LrhDescriptor.write(b, 0, 0, 0, LrhDescriptor.LNH_IBA_GLOBAL, dst.fabricPort(1).lid(), total / 4, raw.lid());
        GrhDescriptor.write(b, 8, 0, 0, n + Icrc.LENGTH, 64, raw.gid(), dst.fabricPort(1).gid());
        int at = BthDescriptor.write(b, 48, opcode, false, false, 0, 0xFFFF, qpn, false, 0);
        at = DethDescriptor.write(b, at, 0x77, 5);
        b.putLong(at, 42);
        new Icrc().writeIb(b, 0, 48 + n);
        return total;
    }

    private void inject(ByteBuffer b, int len) {
        b.limit(len).position(0);
        raw.send(fixture.drivers().get(0).fabricPort(1).lid(), b);
        fixture.fabric().runUntilIdle();
    }

    @Test
    void shouldDropAndCountWhenFrameIsTruncated() {
        ByteBuffer b = ByteBuffer.allocate(256);
        int len = udPacket(b, Opcode.UD_SEND_ONLY, ud.qp.qpNum());
        long before = malformed();
        inject(b, len - 10);
        assertThat(malformed()).isEqualTo(before + 1);
    }

    @Test
    void shouldDropAndCountWhenIcrcIsWrong() {
        ByteBuffer b = ByteBuffer.allocate(256);
        int len = udPacket(b, Opcode.UD_SEND_ONLY, ud.qp.qpNum());
        b.put(len - 1, (byte) (b.get(len - 1) ^ 1));
        long before = malformed();
        inject(b, len);
        assertThat(malformed()).isEqualTo(before + 1);
    }

    /** Sends {@code b[0, len)} to {@code dst}'s port 1 in a frame the raw port seals, as a sending HCA does. */
    private void injectSealed(ByteBuffer b, int len, SimDriver dst) {
        b.limit(len).position(0);
        Frame f = raw.acquire();
        f.put(b).dstLid(dst.fabricPort(1).lid()).seal();
        assertThat(raw.send(f)).isTrue();
        fixture.fabric().runUntilIdle();
    }

    @Test
    void shouldTrustTheIcrcOfASealedFrameUnlessEveryIcrcIsChecked() {
        SimDriver strict = SimDriver.builder(fixture.fabric()).name("strict").checkEveryIcrc(true).build();
        RvtDevice strictDev = RvtDevice.register(strict);
        try {
            Verbs verbs = new Verbs(fixture);
            Endpoint strictUd = verbs.endpoint(strictDev, QpType.UD, 4096);
            verbs.activateUd(strictUd, 0x77);
            long before = malformed();
            long strictBefore = strictDev.portCounter(1, PortCounter.RX_MALFORMED);

            // A wrong ICRC under a seal: the default HCA takes the sender's word (the packet is delivered)...
            ud.qp.postRecv(new RecvWorkRequest(1).sge(ud.mr, 0, 256));
            ByteBuffer b = ByteBuffer.allocate(256);
            int len = udPacket(b, Opcode.UD_SEND_ONLY, ud.qp.qpNum());
            b.put(len - 1, (byte) (b.get(len - 1) ^ 1));
            injectSealed(b, len, fixture.drivers().get(0));
            assertThat(malformed()).isEqualTo(before);
            assertThat(verbs.await(ud.recvCq, 1).get(0).status()).isEqualTo(WcStatus.SUCCESS);

            // ...one built with checkEveryIcrc(true) checks it anyway and drops it.
            ByteBuffer s = ByteBuffer.allocate(256);
            int slen = udPacketTo(s, strict, Opcode.UD_SEND_ONLY, strictUd.qp.qpNum());
            s.put(slen - 1, (byte) (s.get(slen - 1) ^ 1));
            injectSealed(s, slen, strict);
            assertThat(strictDev.portCounter(1, PortCounter.RX_MALFORMED)).isEqualTo(strictBefore + 1);
        } finally {
            strictDev.unregister();
        }
    }

    @Test
    void shouldDropAndCountWhenOpcodeIsUnknown() {
        ByteBuffer b = ByteBuffer.allocate(256);
        int len = udPacket(b, 0x7F, ud.qp.qpNum());
        long before = malformed();
        inject(b, len);
        assertThat(malformed()).isEqualTo(before + 1);
    }

    @Test
    void shouldDropAndCountWhenQpnIsUnknown() {
        ByteBuffer b = ByteBuffer.allocate(256);
        int len = udPacket(b, Opcode.UD_SEND_ONLY, 0xABCDE);
        long before = malformed();
        inject(b, len);
        assertThat(malformed()).isEqualTo(before + 1);
    }

    @Test
    void shouldNeverThrowWhenFramesAreRandomBytes() {
        SplittableRandom r = new SplittableRandom(SEED);
        ByteBuffer good = ByteBuffer.allocate(256);
        int goodLen = udPacket(good, Opcode.UD_SEND_ONLY, ud.qp.qpNum());
        long before = malformed();
        int n = 2000;
        for (int i = 0; i < n; i++) {
            ByteBuffer b = ByteBuffer.allocate(256);
            int len;
            if (i % 2 == 0) {
                len = 1 + r.nextInt(200);
                for (int k = 0; k < len; k++) {
                    b.put(k, (byte) r.nextInt(256));
                }
            } else {
                len = goodLen;
                b.put(0, good, 0, goodLen);
                // One bit of a field the ICRC covers (not VL, GRH class/flow/hop limit, BTH resv8a): always caught.
                int at;
                do {
                    at = r.nextInt(len);
                } while (at == 0 || (at >= 8 && at <= 11) || at == 15 || at == 52);
                b.put(at, (byte) (b.get(at) ^ (1 << r.nextInt(8))));
            }
            inject(b, len);
        }
        assertThat(malformed() - before).as("seed %d", SEED).isEqualTo(n);
    }
}
