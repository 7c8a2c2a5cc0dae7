package io.rvt.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.MemoryRegion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The fixture of RC tests on the in-test wire: nodes {@code a} and {@code b} (LIDs 1 and 2, 4096-entry QP tables) on
 * a fresh {@link Fabric}, a's 64 KiB source region filled with a pattern, b's 64 KiB destination region; after each
 * test no SGE still references either region.
 */
abstract class TwoNodeTest {
    /** Bytes of each region. */
    static final int REGION_BYTES = 1 << 16;

    Fabric fabric;
    Node a;
    Node b;
    MemoryRegion srcA;
    MemoryRegion dstB;

    /** @return the seed of the pattern in {@code srcA} ({@link RcOperationsTest#fill}) */
    abstract long pattern();

    @BeforeEach
    void twoNodes() {
        fabric = new Fabric();
        a = fabric.node("a", 1, 4096);
        b = fabric.node("b", 2, 4096);
        srcA = a.reg(REGION_BYTES);
        dstB = b.reg(REGION_BYTES);
        RcOperationsTest.fill(srcA, pattern());
    }

    @AfterEach
    void noReferenceLeft() {
        assertThat(Node.sgeRefs(srcA)).isZero();
        assertThat(Node.sgeRefs(dstB)).isZero();
    }
}
