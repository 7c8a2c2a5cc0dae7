package io.rvt.api.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * {@link MrMapping}, {@link DriverMr#mapping()}'s default, and {@link Sge} taking a region's mapping with one read.
 */
class MrMappingTest {

    @Test
    void shouldHoldOneBufferOrPiecesWithTheirAddressAndLength() {
        ByteBuffer one = ByteBuffer.allocate(100);
        MrMapping m = new MrMapping(one, 0x1000);
        assertThat(m.memory()).isSameAs(one);
        assertThat(m.piece(0)).isSameAs(one);
        assertThat(m.pieceShift()).isZero();
        assertThat(m.pieceCount()).isEqualTo(1);
        assertThat(m.addr()).isEqualTo(0x1000);
        assertThat(m.length()).isEqualTo(100);

        ByteBuffer[] p = {ByteBuffer.allocate(4096), ByteBuffer.allocate(10)};
        MrMapping q = new MrMapping(p, 12, 0x2000, 4106);
        p[1] = null; // the array was copied
        assertThat(q.piece(1)).isNotNull().extracting(ByteBuffer::capacity).isEqualTo(10);
        assertThat(q.memory()).isSameAs(q.piece(0));
        assertThat(q.pieceShift()).isEqualTo(12);
        assertThat(q.pieceCount()).isEqualTo(2);
        MrMapping moved = q.at(0);
        assertThat(moved.addr()).isZero();
        assertThat(moved.piece(1)).isSameAs(q.piece(1));
        assertThat(moved.length()).isEqualTo(4106);
        assertThat(q.addr()).as("unchanged").isEqualTo(0x2000);
    }

    @Test
    void shouldRefuseBadInputNamingTheValue() {
        ByteBuffer b = ByteBuffer.allocate(4096);
        assertThatThrownBy(() -> new MrMapping((ByteBuffer) null, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("MrMapping: memory is null");
        assertThatThrownBy(() -> new MrMapping(new ByteBuffer[0], 12, 0, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("MrMapping: no pieces (0)");
        assertThatThrownBy(() -> new MrMapping(new ByteBuffer[] {b}, 11, 0, 4096))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("MrMapping: piece shift 11 is outside 12..30");
        assertThatThrownBy(() -> new MrMapping(new ByteBuffer[] {b, null}, 12, 0, 4096))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("MrMapping: piece 1 is null");
        assertThatThrownBy(() -> new MrMapping(new ByteBuffer[] {b}, 12, 0, 4097))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("MrMapping: length 4097 is not the pieces' 4096");
    }

    @Test
    void shouldBuildTheMappingFromTheRegionsMethodsByDefault() {
        HeapMr one = new HeapMr(1, 0x1000, 100);
        MrMapping m = one.mapping();
        assertThat(m.memory()).isSameAs(one.buffer());
        assertThat(m.addr()).isEqualTo(0x1000);
        assertThat(m.length()).isEqualTo(100);
        assertThat(m.pieceShift()).isZero();

        HeapMr split = new HeapMr(2, 0x4000, 3 * 4096 + 5, 12);
        MrMapping q = split.mapping();
        assertThat(q.pieceShift()).isEqualTo(12);
        assertThat(q.pieceCount()).isEqualTo(4);
        for (int i = 0; i < 4; i++) {
            assertThat(q.piece(i)).isSameAs(split.piece(i));
        }
        assertThat(q.length()).isEqualTo(3 * 4096 + 5);
    }

    @Test
    void shouldReadTheRegionsMappingOncePerSetAndNothingElse() {
        HeapMr one = new HeapMr(1, 0x1000, 100);
        Sge s = new Sge().set(one, 0x1000 + 10, 90, 30);
        assertThat(one.mappingReads).isEqualTo(1);
        assertThat(one.fieldReads).as("memory(), addr(), pieceShift(), piece(i) outside mapping()").isZero();
        assertThat(s.memory()).isSameAs(one.buffer());
        assertThat(s.offset()).isEqualTo(10);
        assertThat(s.length()).isEqualTo(90);

        // in pieces: the entry starts 6 bytes before the end of piece 1 and steps into piece 2
        HeapMr split = new HeapMr(2, 0x4000, 3 * 4096, 12);
        s.set(split, 0x4000 + 2 * 4096 - 6, 4096 + 6, 20);
        assertThat(split.mappingReads).isEqualTo(1);
        assertThat(split.fieldReads).isZero();
        assertThat(s.memory()).isSameAs(split.piece(1));
        assertThat(s.offset()).isEqualTo(4090);
        assertThat(s.length()).as("to the end of piece 1").isEqualTo(6);
        s.advance(6);
        assertThat(split.mappingReads).as("the step to the next piece").isEqualTo(2);
        assertThat(s.memory()).isSameAs(split.piece(2));
        assertThat(s.offset()).isZero();
        assertThat(s.length()).isEqualTo(4096);
        assertThat(s.sgeLength()).isEqualTo(14);
    }
}
