package io.rvt.driver.sim.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A sender's seal survives an unchanged crossing and is broken by anything that changes the bytes. */
class FrameSealTest {
    private static final int FRAMES = 200;

    /** Sends {@value #FRAMES} frames (sealed or not) over a link with {@code faults}; the seals seen on delivery. */
    private static List<Boolean> sealsOnDelivery(FaultConfig faults, boolean seal) {
        List<Boolean> seen = new ArrayList<>();
        try (Fabric f = Fabric.builder(TestSupport.uniqueName("seal")).deterministic(7).faults(faults).build()) {
            FabricPort a = f.newPort().attach();
            FabricPort b = f.newPort().handler(frame -> {
                seen.add(frame.isSealed());
                frame.release();
            }).attach();
            for (int i = 0; i < FRAMES; i++) {
                Frame frame = a.acquire();
                frame.put(ByteBuffer.wrap(new byte[64])).dstLid(b.lid());
                if (seal) {
                    frame.seal();
                }
                assertThat(a.send(frame)).isTrue();
                f.runUntilIdle();
            }
        }
        return seen;
    }

    @Test
    void shouldKeepTheSealWhenTheFabricLeavesTheBytesAlone() {
        List<Boolean> seen = sealsOnDelivery(FaultConfig.NONE, true);
        assertThat(seen).hasSize(FRAMES).containsOnly(true);
    }

    @Test
    void shouldBreakTheSealWhenCorruptionFlipsABit() {
        List<Boolean> seen = sealsOnDelivery(FaultConfig.builder().corruption(1.0).build(), true);
        assertThat(seen).hasSize(FRAMES).containsOnly(false);
    }

    @Test
    void shouldSealBothCopiesWhenAFrameIsDuplicated() {
        List<Boolean> seen = sealsOnDelivery(FaultConfig.builder().duplication(1.0).build(), true);
        assertThat(seen).hasSize(2 * FRAMES).containsOnly(true);
    }

    @Test
    void shouldNotSealAFrameTheSenderLeftUnsealed() {
        assertThat(sealsOnDelivery(FaultConfig.NONE, false)).hasSize(FRAMES).containsOnly(false);
    }

    @Test
    void shouldHandOutUnsealedFramesFromThePool() {
        FramePool pool = FramePool.heap(1, 128, 0);
        Frame frame = pool.acquire();
        frame.seal();
        assertThat(frame.isSealed()).isTrue();
        frame.release();
        assertThat(pool.acquire().isSealed()).isFalse();
    }

    /** Puts 0xC0FFEE01 in a frame's last four bytes, as an ICRC writer would, and counts its calls. */
    private static final class CountingWriter implements ChecksumWriter {
        int calls;

        @Override
        public void write(Frame frame) {
            calls++;
            frame.buffer().putInt(frame.length() - 4, 0xC0FFEE01);
        }
    }

    /** A handler that records the frames' last int, whether their checksum was still deferred, and releases them. */
    private static final class Capture implements FrameHandler {
        final boolean accepts;
        final List<Integer> lastInts = new ArrayList<>();
        final List<Boolean> deferred = new ArrayList<>();
        final List<byte[]> bytes = new ArrayList<>();

        Capture(boolean accepts) {
            this.accepts = accepts;
        }

        @Override
        public void onFrame(Frame frame) {
            deferred.add(frame.hasDeferredBytes());
            lastInts.add(frame.buffer().getInt(frame.length() - 4));
            byte[] b = new byte[frame.length()];
            frame.buffer().get(0, b);
            bytes.add(b);
            frame.release();
        }

        @Override
        public boolean acceptsDeferredBytes() {
            return accepts;
        }
    }

    /** Sends one 64-byte frame of zeros, its checksum deferred or written first; returns the fabric's trace hash. */
    private static long sendDeferred(FaultConfig faults, Capture capture, ChecksumWriter writer, boolean defer) {
        return send(faults, capture, writer, defer, true);
    }

    private static long send(FaultConfig faults, Capture capture, ChecksumWriter writer, boolean defer,
            boolean traced) {
        try (Fabric f = Fabric.builder(TestSupport.uniqueName("deferred")).deterministic(11).faults(faults)
                .trace(traced).build()) {
            FabricPort a = f.newPort().attach();
            FabricPort b = f.newPort().handler(capture).attach();
            Frame frame = a.acquire();
            frame.put(ByteBuffer.wrap(new byte[64])).dstLid(b.lid());
            if (defer) {
                frame.sealDeferred(writer);
            } else {
                writer.write(frame);
                frame.seal();
            }
            assertThat(a.send(frame)).isTrue();
            f.runUntilIdle();
            return f.traceHash();
        }
    }

    @Test
    void shouldWriteADeferredChecksumBeforeDeliveringToAHandlerThatDoesNotAcceptIt() {
        CountingWriter writer = new CountingWriter();
        Capture capture = new Capture(false);
        sendDeferred(FaultConfig.NONE, capture, writer, true);
        assertThat(writer.calls).isEqualTo(1);
        assertThat(capture.deferred).containsExactly(false);
        assertThat(capture.lastInts).containsExactly(0xC0FFEE01);
    }

    @Test
    void shouldTraceTheSameBytesWhetherTheChecksumIsWrittenBeforeSendingOrDeferred() {
        long eager = sendDeferred(FaultConfig.NONE, new Capture(true), new CountingWriter(), false);
        long deferred = sendDeferred(FaultConfig.NONE, new Capture(true), new CountingWriter(), true);
        long other = sendDeferred(FaultConfig.NONE, new Capture(true), frame -> { }, true);
        assertThat(deferred).isEqualTo(eager).isNotEqualTo(other);
    }

    @Test
    void shouldLeaveTheChecksumUnwrittenForAHandlerThatAcceptsItWhenNothingLooksAtTheBytes() {
        CountingWriter writer = new CountingWriter();
        Capture capture = new Capture(true);
        send(FaultConfig.NONE, capture, writer, true, false);
        assertThat(writer.calls).isZero();
        assertThat(capture.deferred).containsExactly(true);
    }

    @Test
    void shouldWriteTheChecksumBeforeCorruptionFlipsABit() {
        CountingWriter writer = new CountingWriter();
        Capture capture = new Capture(true);
        sendDeferred(FaultConfig.builder().corruption(1.0).build(), capture, writer, true);
        assertThat(writer.calls).isEqualTo(1);
        assertThat(capture.deferred).containsExactly(false);
        byte[] expected = new byte[64];
        ByteBuffer.wrap(expected).putInt(60, 0xC0FFEE01);
        byte[] got = capture.bytes.get(0);
        int flipped = 0;
        for (int i = 0; i < 64; i++) {
            flipped += Integer.bitCount((got[i] ^ expected[i]) & 0xFF);
        }
        assertThat(flipped).isEqualTo(1);
    }

    /** Sends a 64-byte frame whose bytes 16..47 stay in {@code src} (filled with 7s); the handler sees what arrives. */
    private static void sendReferenced(FaultConfig faults, FrameHandler handler) {
        ByteBuffer src = ByteBuffer.allocateDirect(32);
        for (int i = 0; i < 32; i++) {
            src.put(i, (byte) 7);
        }
        try (Fabric f = Fabric.builder(TestSupport.uniqueName("slices")).deterministic(5).faults(faults).trace(false)
                .build()) {
            FabricPort a = f.newPort().attach();
            FabricPort b = f.newPort().handler(handler).attach();
            Frame frame = a.acquire();
            frame.put(ByteBuffer.wrap(new byte[64])).dstLid(b.lid());
            frame.referencePayload(16, src, 0, 20).referencePayload(36, src, 20, 12).seal();
            assertThat(frame.payloadSlices()).isEqualTo(1); // adjacent in the sender's memory: one slice
            assertThat(a.send(frame)).isTrue();
            f.runUntilIdle();
        }
    }

    @Test
    void shouldCopyReferencedPayloadIntoTheFrameBeforeDeliveringToAHandlerThatDoesNotAcceptIt() {
        Capture capture = new Capture(false);
        sendReferenced(FaultConfig.NONE, capture);
        byte[] got = capture.bytes.get(0);
        for (int i = 0; i < 64; i++) {
            assertThat(got[i]).as("byte %d", i).isEqualTo((byte) (i >= 16 && i < 48 ? 7 : 0));
        }
        assertThat(capture.deferred).containsExactly(false);
    }

    @Test
    void shouldHandReferencedPayloadToAHandlerThatAcceptsIt() {
        List<Integer> slices = new ArrayList<>();
        List<Integer> lengths = new ArrayList<>();
        sendReferenced(FaultConfig.builder().duplication(1.0).build(), new FrameHandler() {
            @Override
            public void onFrame(Frame frame) {
                slices.add(frame.payloadSlices());
                lengths.add(frame.payload().totalLength());
                assertThat(frame.buffer().get(16)).isZero(); // not copied in
                frame.release();
                assertThat(frame.payloadSlices()).isZero(); // released: no sender memory kept reachable
            }

            @Override
            public boolean acceptsDeferredBytes() {
                return true;
            }
        });
        assertThat(slices).containsExactly(1, 1); // the original and its duplicate (adjacent slices merge)
        assertThat(lengths).containsExactly(32, 32);
    }
}
