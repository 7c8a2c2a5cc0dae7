package io.rvt.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import org.junit.jupiter.api.Test;

class ScatterGatherEntryTest {

    private static MemoryRegion region(long addr, long length, int lkey) {
        MemoryRegion mr = mock(MemoryRegion.class);
        when(mr.addr()).thenReturn(addr);
        when(mr.length()).thenReturn(length);
        when(mr.lkey()).thenReturn(lkey);
        return mr;
    }

    @Test
    void shouldRejectNegativeLengthWhenSet() {
        ScatterGatherEntry e = new ScatterGatherEntry().length(7);
        assertThatThrownBy(() -> e.length(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("length").hasMessageContaining("-1");
        assertThatThrownBy(() -> e.set(0L, -5, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("length").hasMessageContaining("-5");
        assertThat(e.length()).isEqualTo(7);
    }

    @Test
    void shouldSetAllThreeFieldsWhenSetWithAddressLengthAndKey() {
        ScatterGatherEntry e = new ScatterGatherEntry().set(0xFFFF_FFFF_0000L, Integer.MAX_VALUE, 0x1234);
        assertThat(e.addr()).isEqualTo(0xFFFF_FFFF_0000L);
        assertThat(e.length()).isEqualTo(Integer.MAX_VALUE);
        assertThat(e.lkey()).isEqualTo(0x1234);
        assertThat(e.addr(3).lkey(4).length(0)).isSameAs(e);
        assertThat(e.addr()).isEqualTo(3);
        assertThat(e.lkey()).isEqualTo(4);
        assertThat(e.length()).isZero();
    }

    @Test
    void shouldPointIntoRegionWhenSetFromRegionAndOffset() {
        MemoryRegion mr = region(0x7000_0000L, 4096, 0xABCD);
        ScatterGatherEntry e = new ScatterGatherEntry().set(mr, 100, 200);
        assertThat(e.addr()).isEqualTo(0x7000_0000L + 100);
        assertThat(e.length()).isEqualTo(200);
        assertThat(e.lkey()).isEqualTo(0xABCD);
        new ScatterGatherEntry().set(mr, 0, 4096);
        new ScatterGatherEntry().set(mr, 4096, 0);
    }

    @Test
    void shouldRejectRangeWhenNotInsideRegion() {
        MemoryRegion mr = region(0x1000L, 64, 1);
        ScatterGatherEntry e = new ScatterGatherEntry().set(9L, 9, 9);
        assertThatThrownBy(() -> e.set(mr, 60, 5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("offset=60").hasMessageContaining("length=5").hasMessageContaining("64");
        assertThatThrownBy(() -> e.set(mr, -1, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("offset=-1");
        assertThatThrownBy(() -> e.set(mr, 0, -1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("length=-1");
        assertThatThrownBy(() -> e.set(mr, Integer.MAX_VALUE, Integer.MAX_VALUE))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(e.addr()).isEqualTo(9L);
        assertThat(e.length()).isEqualTo(9);
        assertThat(e.lkey()).isEqualTo(9);
    }
}
