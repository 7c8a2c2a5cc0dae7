package io.rvt.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import org.junit.jupiter.api.Test;

class SendWorkRequestTest {

    @Test
    void shouldStartAsEmptySendWhenCreated() {
        SendWorkRequest wr = new SendWorkRequest(3);
        assertThat(wr.opcode()).isEqualTo(WrOpcode.SEND);
        assertThat(wr.numSge()).isZero();
        assertThat(wr.maxSge()).isEqualTo(3);
        assertThat(wr.sendFlags()).isZero();
        assertThat(wr.next()).isNull();
    }

    @Test
    void shouldRejectNegativeMaxSgeWhenConstructed() {
        assertThatThrownBy(() -> new SendWorkRequest(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxSge").hasMessageContaining("-1");
    }

    @Test
    void shouldAcceptIbtaAndDriverSendFlagsWhenSet() {
        SendWorkRequest wr = new SendWorkRequest(1);
        int all = SendFlag.ALL | 0xF000_0000;
        assertThat(wr.sendFlags(all).sendFlags()).isEqualTo(all);
        assertThat(SendWorkRequest.ALLOWED_SEND_FLAGS).isEqualTo(0x1F | 0xF000_0000);
        assertThat(wr.sendFlags(1 << 28).sendFlags()).isEqualTo(1 << 28);
        assertThat(wr.sendFlags(1 << 31).sendFlags()).isEqualTo(1 << 31);
        assertThat(wr.sendFlags(0).sendFlags()).isZero();
    }

    @Test
    void shouldRejectSendFlagsWhenRvtInternalOrUndefinedBitIsSet() {
        for (int bad : new int[] {1 << 26, 1 << 27, 1 << 20, 1 << 5, SendFlag.SIGNALED.bit() | (1 << 26)}) {
            SendWorkRequest wr = new SendWorkRequest(1).sendFlags(SendFlag.FENCE.bit());
            assertThatThrownBy(() -> wr.sendFlags(bad)).as("flags 0x%x", bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("sendFlags")
                    .hasMessageContaining("0x" + Integer.toHexString(bad));
            assertThat(wr.sendFlags()).as("unchanged after refusing 0x%x", bad).isEqualTo(SendFlag.FENCE.bit());
        }
    }

    @Test
    void shouldRejectNumSgeWhenAboveMaxSgeOrNegative() {
        SendWorkRequest wr = new SendWorkRequest(2);
        assertThat(wr.numSge(2).numSge()).isEqualTo(2);
        assertThat(wr.numSge(0).numSge()).isZero();
        assertThatThrownBy(() -> wr.numSge(3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("numSge").hasMessageContaining("3");
        assertThatThrownBy(() -> wr.numSge(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("numSge").hasMessageContaining("-1");
    }

    @Test
    void shouldRejectRemoteQpnWhenWiderThan24Bits() {
        SendWorkRequest wr = new SendWorkRequest(0);
        assertThat(wr.remoteQpn(0xFFFFFF).remoteQpn()).isEqualTo(0xFFFFFF);
        assertThatThrownBy(() -> wr.remoteQpn(0x1000000)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("remoteQpn").hasMessageContaining(String.valueOf(0x1000000));
        assertThatThrownBy(() -> wr.remoteQpn(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("remoteQpn").hasMessageContaining("-1");
    }

    @Test
    void shouldRejectPkeyIndexWhenAbove65535() {
        SendWorkRequest wr = new SendWorkRequest(0);
        assertThat(wr.pkeyIndex(65535).pkeyIndex()).isEqualTo(65535);
        assertThatThrownBy(() -> wr.pkeyIndex(65536)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("pkeyIndex").hasMessageContaining("65536");
        assertThatThrownBy(() -> wr.pkeyIndex(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("pkeyIndex").hasMessageContaining("-1");
    }

    @Test
    void shouldRejectNullOpcodeWhenSet() {
        SendWorkRequest wr = new SendWorkRequest(0).opcode(WrOpcode.RDMA_WRITE);
        assertThatThrownBy(() -> wr.opcode(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("opcode");
        assertThat(wr.opcode()).isEqualTo(WrOpcode.RDMA_WRITE);
    }

    @Test
    void shouldRejectSgeIndexWhenOutOfRange() {
        SendWorkRequest wr = new SendWorkRequest(2);
        assertThatThrownBy(() -> wr.sge(2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sge index").hasMessageContaining("2");
        assertThatThrownBy(() -> wr.sge(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sge index").hasMessageContaining("-1");
        assertThatThrownBy(() -> new SendWorkRequest(0).sge(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sge index");
    }

    @Test
    void shouldReturnSameSgeInstanceWhenRequestIsReused() {
        SendWorkRequest wr = new SendWorkRequest(3);
        ScatterGatherEntry[] first = {wr.sge(0), wr.sge(1), wr.sge(2)};
        assertThat(first).doesNotHaveDuplicates();
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 3; i++) {
                ScatterGatherEntry e = wr.sge(i).set(0x1000L * round + i, 10 + i, 7);
                assertThat(e).isSameAs(first[i]);
                assertThat(wr.sge(i)).isSameAs(first[i]);
            }
            wr.numSge(3).wrId(round);
        }
        MemoryRegion mr = mock(MemoryRegion.class);
        when(mr.length()).thenReturn(100L);
        when(mr.addr()).thenReturn(0x5000L);
        when(mr.lkey()).thenReturn(0x42);
        wr.sge(mr, 4, 8);
        assertThat(wr.sge(0)).isSameAs(first[0]);
        assertThat(wr.numSge()).isEqualTo(1);
        assertThat(wr.sge(0).addr()).isEqualTo(0x5004L);
        assertThat(wr.sge(0).length()).isEqualTo(8);
        assertThat(wr.sge(0).lkey()).isEqualTo(0x42);
    }

    @Test
    void shouldChainRequestsWhenNextIsSet() {
        SendWorkRequest a = new SendWorkRequest(1).wrId(1);
        SendWorkRequest b = new SendWorkRequest(1).wrId(2);
        SendWorkRequest c = new SendWorkRequest(1).wrId(3);
        assertThat(a.next(b)).isSameAs(a);
        b.next(c);
        assertThat(a.next()).isSameAs(b);
        assertThat(a.next().next()).isSameAs(c);
        assertThat(c.next()).isNull();
        a.next(null);
        assertThat(a.next()).isNull();
    }

    @Test
    void shouldKeepEveryFieldWhenSettersAreChained() {
        AddressHandle ah = mock(AddressHandle.class);
        MemoryRegion mr = mock(MemoryRegion.class);
        SendWorkRequest wr = new SendWorkRequest(1)
                .wrId(0xDEAD_BEEF_CAFEL).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).sendFlags(SendFlag.SIGNALED.bit())
                .immData(0x11).invalidateRkey(0x22).remoteAddr(0x3300L).rkey(0x44).compareAdd(0x55L).swap(0x66L)
                .ah(ah).remoteQpn(0x77).remoteQkey(0x8000_0000).pkeyIndex(9).mr(mr).key(0xAA).access(0xBB);
        assertThat(wr.wrId()).isEqualTo(0xDEAD_BEEF_CAFEL);
        assertThat(wr.opcode()).isEqualTo(WrOpcode.ATOMIC_CMP_AND_SWP);
        assertThat(wr.sendFlags()).isEqualTo(2);
        assertThat(wr.immData()).isEqualTo(0x11);
        assertThat(wr.invalidateRkey()).isEqualTo(0x22);
        assertThat(wr.remoteAddr()).isEqualTo(0x3300L);
        assertThat(wr.rkey()).isEqualTo(0x44);
        assertThat(wr.compareAdd()).isEqualTo(0x55L);
        assertThat(wr.swap()).isEqualTo(0x66L);
        assertThat(wr.ah()).isSameAs(ah);
        assertThat(wr.remoteQpn()).isEqualTo(0x77);
        assertThat(wr.remoteQkey()).isEqualTo(0x8000_0000);
        assertThat(wr.pkeyIndex()).isEqualTo(9);
        assertThat(wr.mr()).isSameAs(mr);
        assertThat(wr.key()).isEqualTo(0xAA);
        assertThat(wr.access()).isEqualTo(0xBB);
        assertThat(wr.toString()).contains("ATOMIC_CMP_AND_SWP").contains("SIGNALED");
    }
}
