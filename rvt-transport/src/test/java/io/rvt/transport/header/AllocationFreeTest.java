package io.rvt.transport.header;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rvt.api.Gid;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The per-packet path allocates nothing: bytes allocated by this thread (com.sun.management.ThreadMXBean) across a
 * window of 10,000 rounds after warm-up must be exactly 0. A property, not a timing.
 */
class AllocationFreeTest {
    private static final int WARM_UP = 30_000;
    private static final int ROUNDS = 10_000;
    private static final int WINDOWS = 5;

    /**
     * {@code ThreadMXBean.getCurrentThreadAllocatedBytes()} as a {@code ()long} handle. Reached reflectively because
     * io.rvt.transport does not (and should not) require java.management or jdk.management; an exact invocation
     * boxes nothing, so measuring does not allocate by itself.
     */
    private static final MethodHandle ALLOCATED_BYTES;
    private static final boolean SUPPORTED;

    static {
        MethodHandle handle = null;
        boolean supported = false;
        try {
            Object bean = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean")
                    .invoke(null);
            Class<?> type = Class.forName("com.sun.management.ThreadMXBean");
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            supported = (boolean) lookup.findVirtual(type, "isThreadAllocatedMemorySupported",
                    MethodType.methodType(boolean.class)).invoke(bean);
            if (supported) {
                lookup.findVirtual(type, "setThreadAllocatedMemoryEnabled",
                        MethodType.methodType(void.class, boolean.class)).invoke(bean, true);
            }
            handle = lookup.findVirtual(type, "getCurrentThreadAllocatedBytes", MethodType.methodType(long.class))
                    .bindTo(bean);
        } catch (Throwable t) {
            supported = false;
        }
        ALLOCATED_BYTES = handle;
        SUPPORTED = supported;
    }

    private static long allocatedBytes() {
        try {
            return (long) ALLOCATED_BYTES.invokeExact();
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private final Icrc icrc = new Icrc();
    private final PacketParser parser = new PacketParser();
    private final PacketHeaders headers = new PacketHeaders();
    private final Gid src = Gid.of(0xFE80_0000_0000_0000L, 0x1122_3344_5566_7788L);
    private final Gid dst = Gid.of(0xFE80_0000_0000_0000L, 0x0102_0304_0506_0708L);
    private ByteBuffer ibGlobal;
    private ByteBuffer ibLocalDirect;
    private ByteBuffer roceHeap;
    private ByteBuffer roceDirect;
    private ByteBuffer built;
    private int ibGlobalLength;
    private int ibLocalLength;
    private int roceLength;
    private int roceDirectLength;
    private long sink;

    @Test
    void shouldAllocateNothingWhenParsingBuildingAndCheckingIcrc() {
        assumeTrue(SUPPORTED, "thread allocation accounting is not available on this JVM");
        SplittableRandom rnd = new SplittableRandom(0xA110_C001L);
        PacketSpec a = PacketSpec.random(rnd, Framing.IB_LRH, true, Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 1021);
        ibGlobal = BufferKind.HEAP_BIG_ENDIAN.allocate(a.length());
        ibGlobalLength = a.write(ibGlobal, 0, icrc);
        PacketSpec b = PacketSpec.random(rnd, Framing.IB_LRH, false, Opcode.UD_SEND_ONLY_WITH_IMMEDIATE, 2048);
        ibLocalDirect = BufferKind.DIRECT_LITTLE_ENDIAN.allocate(b.length());
        ibLocalLength = b.write(ibLocalDirect, 0, icrc);
        PacketSpec c = PacketSpec.random(rnd, Framing.ROCEV2, false, Opcode.RC_RDMA_READ_RESPONSE_FIRST, 4096);
        roceHeap = BufferKind.HEAP_LITTLE_ENDIAN.allocate(c.length());
        roceLength = c.write(roceHeap, 0, icrc);
        PacketSpec d = PacketSpec.random(rnd, Framing.ROCEV2, false, Opcode.RC_ATOMIC_ACKNOWLEDGE, 0);
        roceDirect = BufferKind.DIRECT_BIG_ENDIAN.allocate(d.length());
        roceDirectLength = d.write(roceDirect, 0, icrc);
        built = BufferKind.DIRECT_BIG_ENDIAN.allocate(256);

        for (int i = 0; i < WARM_UP; i++) {
            round(i);
        }
        allocatedBytes();
        // A rare one-off JVM event (seen: 72 or 120 bytes in one window out of dozens, only when other test classes
        // ran first) can land in a window; a per-call allocation cannot hide, since it costs at least 16 bytes a
        // round in every window. So: no window may allocate a byte per round, and one of them must allocate none.
        long[] windows = new long[WINDOWS];
        for (int w = 0; w < WINDOWS; w++) {
            long before = allocatedBytes();
            for (int i = 0; i < ROUNDS; i++) {
                round(i);
            }
            windows[w] = allocatedBytes() - before;
            assertThat(windows[w]).as("bytes allocated by %d rounds", ROUNDS).isLessThan(ROUNDS);
            if (windows[w] == 0) {
                break;
            }
        }
        assertThat(windows).as("bytes allocated per window of %d rounds", ROUNDS).contains(0L);
        assertThat(sink).isNotZero();
    }

    private void round(int i) {
        sink += parser.parse(ibGlobal, 0, ibGlobalLength, Framing.IB_LRH, headers) + headers.psn();
        sink += parser.parse(ibLocalDirect, 0, ibLocalLength, Framing.IB_LRH, headers) + headers.dethSrcQp();
        sink += parser.parse(roceHeap, 0, roceLength, Framing.ROCEV2, headers) + headers.aeth();
        sink += icrc.checkRoceV4(PacketSpec.SRC_IP, PacketSpec.DST_IP, PacketSpec.IP_ID, true,
                PacketSpec.UDP_SRC_PORT, Framing.ROCEV2_UDP_PORT, roceHeap, 0, roceLength) ? 1 : 0;
        // the IPv4 ID solver's paths: the packet was written with IP_ID (not 0), then with a bit of its ICRC flipped
        sink += icrc.recoverRoceV4Id(PacketSpec.SRC_IP, PacketSpec.DST_IP, true, PacketSpec.UDP_SRC_PORT,
                Framing.ROCEV2_UDP_PORT, roceHeap, 0, roceLength);
        roceDirect.put(roceDirectLength - 1, (byte) (roceDirect.get(roceDirectLength - 1) ^ 1));
        sink += icrc.recoverRoceV4Id(PacketSpec.SRC_IP, PacketSpec.DST_IP, true, PacketSpec.UDP_SRC_PORT,
                Framing.ROCEV2_UDP_PORT, roceDirect, 0, roceDirectLength);
        roceDirect.put(roceDirectLength - 1, (byte) (roceDirect.get(roceDirectLength - 1) ^ 1));
        sink += parser.parse(roceDirect, 0, roceDirectLength, Framing.ROCEV2, headers);
        sink += icrc.computeRoceV6(src, dst, i, Framing.ROCEV2_UDP_PORT, roceDirect, 0, roceDirectLength - 4);
        sink += parser.parse(roceDirect, 0, roceDirectLength - 4, Framing.ROCEV2, headers); // rejected
        sink += parser.parse(roceDirect, 1, roceDirectLength, Framing.ROCEV2, headers); // out of range

        // build a native IB UD packet with a GRH, front to back
        int payload = i & 63;
        int pad = PacketBuilder.padCount(payload);
        int length = PacketBuilder.ibLength(Opcode.UD_SEND_ONLY, true, payload);
        int at = LrhDescriptor.write(built, 0, 0, 0, LrhDescriptor.LNH_IBA_GLOBAL, 1, 0, 2);
        at = GrhDescriptor.write(built, at, 0, i, 0, 64, src, dst);
        at = BthDescriptor.write(built, at, Opcode.UD_SEND_ONLY, false, false, pad, 0xFFFF, 1, false, i);
        at = DethDescriptor.write(built, at, 0x1111_0000, 7);
        at = PacketBuilder.writePad(built, at + payload, pad);
        PacketBuilder.fillIbLengths(built, 0, length);
        icrc.writeIb(built, 0, length);
        sink += at + parser.parse(built, 0, length, Framing.IB_LRH, headers);
    }
}
