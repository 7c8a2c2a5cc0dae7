package io.rvt.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import org.junit.jupiter.api.Test;

class RecvWorkRequestTest {

    @Test
    void shouldRejectNegativeMaxSgeWhenConstructed() {
        assertThatThrownBy(() -> new RecvWorkRequest(-3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxSge").hasMessageContaining("-3");
    }

    @Test
    void shouldRejectNumSgeWhenAboveMaxSgeOrNegative() {
        RecvWorkRequest wr = new RecvWorkRequest(4);
        assertThat(wr.numSge(4).numSge()).isEqualTo(4);
        assertThatThrownBy(() -> wr.numSge(5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("numSge").hasMessageContaining("5");
        assertThatThrownBy(() -> wr.numSge(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("numSge").hasMessageContaining("-1");
        assertThat(wr.numSge()).isEqualTo(4);
    }

    @Test
    void shouldRejectSgeIndexWhenOutOfRange() {
        RecvWorkRequest wr = new RecvWorkRequest(1);
        assertThatThrownBy(() -> wr.sge(1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sge index").hasMessageContaining("1");
        assertThatThrownBy(() -> wr.sge(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sge index").hasMessageContaining("-1");
    }

    @Test
    void shouldReturnSameSgeInstanceWhenRequestIsReused() {
        RecvWorkRequest wr = new RecvWorkRequest(2);
        ScatterGatherEntry s0 = wr.sge(0);
        ScatterGatherEntry s1 = wr.sge(1);
        assertThat(s0).isNotSameAs(s1);
        for (int round = 0; round < 3; round++) {
            assertThat(wr.sge(0).set(round, round, round)).isSameAs(s0);
            assertThat(wr.sge(1)).isSameAs(s1);
        }
        MemoryRegion mr = mock(MemoryRegion.class);
        when(mr.length()).thenReturn(64L);
        when(mr.addr()).thenReturn(0x9000L);
        when(mr.lkey()).thenReturn(5);
        assertThat(wr.numSge(2).sge(mr, 0, 64)).isSameAs(wr);
        assertThat(wr.sge(0)).isSameAs(s0);
        assertThat(wr.numSge()).isEqualTo(1);
        assertThat(s0.addr()).isEqualTo(0x9000L);
        assertThat(s0.length()).isEqualTo(64);
        assertThat(s0.lkey()).isEqualTo(5);
    }

    @Test
    void shouldChainRequestsWhenNextIsSet() {
        RecvWorkRequest a = new RecvWorkRequest(0).wrId(10);
        RecvWorkRequest b = new RecvWorkRequest(0).wrId(11);
        assertThat(a.next(b)).isSameAs(a);
        assertThat(a.next()).isSameAs(b);
        assertThat(a.wrId()).isEqualTo(10);
        assertThat(b.next()).isNull();
    }
}
