package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The target of {@code rvt perf --server} holds every address a perftest client steps through: before, an
 * {@code ib_atomic_bw} client from Linux's rxe had its second FETCH_AND_ADD (the peer's vaddr + 64) NAKed as a remote
 * access error (status 10), the target being the 8 bytes of one atomic.
 */
class RemotePerfTargetTest {
    private static final int LINE = PerftestComm.CACHE_LINE;

    /** perftest's {@code increase_rem_addr}: the message size rounded up to a cache line, wrapping per cycle. */
    private static long nextAddress(long addr, long prim, int size, long scnt, int cycleBuffer) {
        int step = size > LINE ? (size + LINE - 1) / LINE * LINE : LINE;
        long next = addr + step;
        return (scnt + 1) % (cycleBuffer / step) == 0 ? prim : next;
    }

    @ParameterizedTest
    @CsvSource({"8, 4096", "8, 65536", "64, 4096", "100, 4096", "2048, 4096", "2048, 8192"})
    void shouldHoldEveryAddressPerftestsClientSteps(int size, int cycleBuffer) {
        int own = size;
        long base = 0x10000; // a region's address: page-aligned, as rvt's are
        long prim = base + RemotePerf.targetOffset(own);
        long end = prim + RemotePerf.targetBytes(own, cycleBuffer);
        assertThat(prim % LINE).isZero();
        long addr = prim;
        for (long scnt = 0; scnt < 3L * cycleBuffer; scnt++) {
            assertThat(addr).as("message %d of %d bytes", scnt, size).isBetween(prim, end - size);
            addr = nextAddress(addr, prim, size, scnt, cycleBuffer);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {65536, 1 << 20, 8 << 20})
    void shouldHoldOneMessageLargerThanTheCycleBuffer(int size) {
        assertThat(RemotePerf.targetBytes(size, PerftestComm.CYCLE_BUFFER)).isGreaterThanOrEqualTo(size);
        assertThat(RemotePerf.targetOffset(size)).isGreaterThanOrEqualTo(size);
    }

    @ParameterizedTest
    @CsvSource({"4096, 4096", "1024, 4096", "65536, 65536"})
    void shouldUseTheLargerCycleBufferAsPerftestDoes(int theirs, int both) {
        assertThat(PerftestComm.cycleBuffer(theirs, "192.0.2.2")).isEqualTo(both);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, (16 << 20) + 1})
    void shouldRefuseACycleBufferThatIsNoPageSize(int theirs) {
        assertThatThrownBy(() -> PerftestComm.cycleBuffer(theirs, "192.0.2.2"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("192.0.2.2").hasMessageContaining(theirs + " bytes");
    }
}
