package io.rvt.api.spi;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SgeTest {

    @Test
    void shouldTakeSmallestOfSegmentEntryAndRequestWhenLengthForIsAsked() {
        HeapMr mr = new HeapMr(1, 0x1000, 100);
        Sge s = new Sge().set(mr, 0x1000 + 10, 90, 30);
        assertThat(s.lengthFor(1000)).isEqualTo(30);
        assertThat(s.lengthFor(5)).isEqualTo(5);
        s.set(mr, 0x1000 + 80, 20, 30);
        assertThat(s.lengthFor(1000)).isEqualTo(20);
        assertThat(s.lengthFor(0)).isZero();
    }

    @Test
    void shouldMoveAllThreeCursorsWhenAdvanced() {
        HeapMr mr = new HeapMr(1, 0x1000, 100);
        Sge s = new Sge().set(mr, 0x1000 + 10, 90, 30);
        assertThat(s.offset()).isEqualTo(10);
        s.advance(7);
        assertThat(s.vaddr()).isEqualTo(0x1000 + 17);
        assertThat(s.offset()).isEqualTo(17);
        assertThat(s.length()).isEqualTo(83);
        assertThat(s.sgeLength()).isEqualTo(23);
        s.extend(5);
        assertThat(s.sgeLength()).isEqualTo(28);
        assertThat(s.length()).isEqualTo(83);
        assertThat(mr.retains + mr.releases).isZero();
    }

    @Test
    void shouldCopyWithoutTakingReferenceWhenCopyFromIsCalled() {
        HeapMr mr = new HeapMr(1, 0x1000, 100);
        Sge a = new Sge().set(mr, 0x1004, 96, 50);
        Sge b = new Sge().copyFrom(a);
        assertThat(b.mr()).isSameAs(mr);
        assertThat(b.vaddr()).isEqualTo(0x1004);
        assertThat(b.length()).isEqualTo(96);
        assertThat(b.sgeLength()).isEqualTo(50);
        b.advance(10);
        assertThat(a.vaddr()).as("copy is independent").isEqualTo(0x1004);
        assertThat(mr.retains).isZero();
        assertThat(mr.releases).isZero();
    }

    @Test
    void shouldDropReferenceOnceWhenReleasedTwice() {
        HeapMr mr = new HeapMr(1, 0x1000, 100);
        Sge s = new Sge().set(mr, 0x1000, 100, 100);
        s.release();
        assertThat(mr.releases).isEqualTo(1);
        assertThat(s.mr()).isNull();
        s.release();
        assertThat(mr.releases).isEqualTo(1);
    }

    @Test
    void shouldEmptyWithoutDroppingReferenceWhenCleared() {
        HeapMr mr = new HeapMr(1, 0x1000, 100);
        Sge s = new Sge().set(mr, 0x1010, 90, 10);
        s.clear();
        assertThat(s.mr()).isNull();
        assertThat(s.vaddr()).isZero();
        assertThat(s.length()).isZero();
        assertThat(s.sgeLength()).isZero();
        assertThat(mr.releases).isZero();
    }
}
