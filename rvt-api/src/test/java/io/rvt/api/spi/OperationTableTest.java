package io.rvt.api.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.QpType;
import io.rvt.api.WcOpcode;
import io.rvt.api.WrOpcode;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OperationTableTest {

    private static final int RC = QpType.RC.bit();
    private static final int UC = QpType.UC.bit();
    private static final int ALL = 0x1F;

    /** The table standard()'s Javadoc describes (hfi1 without TID RDMA and OPFN). */
    private static Map<WrOpcode, OperationParams> expectedStandard() {
        Map<WrOpcode, OperationParams> m = new EnumMap<>(WrOpcode.class);
        m.put(WrOpcode.RDMA_WRITE, new OperationParams(WrShape.RDMA, RC | UC, 0, WcOpcode.RDMA_WRITE));
        m.put(WrOpcode.RDMA_WRITE_WITH_IMM, new OperationParams(WrShape.RDMA, RC | UC, 0, WcOpcode.RDMA_WRITE));
        m.put(WrOpcode.SEND, new OperationParams(WrShape.SEND, ALL, 0, WcOpcode.SEND));
        m.put(WrOpcode.SEND_WITH_IMM, new OperationParams(WrShape.SEND, ALL, 0, WcOpcode.SEND));
        m.put(WrOpcode.RDMA_READ, new OperationParams(WrShape.RDMA, RC, 0x02, WcOpcode.RDMA_READ));
        m.put(WrOpcode.ATOMIC_CMP_AND_SWP, new OperationParams(WrShape.ATOMIC, RC, 0x02 | 0x04, WcOpcode.COMP_SWAP));
        m.put(WrOpcode.ATOMIC_FETCH_AND_ADD,
                new OperationParams(WrShape.ATOMIC, RC, 0x02 | 0x04, WcOpcode.FETCH_ADD));
        m.put(WrOpcode.LOCAL_INV, new OperationParams(WrShape.SEND, RC | UC, 0x08, WcOpcode.LOCAL_INV));
        m.put(WrOpcode.SEND_WITH_INV, new OperationParams(WrShape.SEND, RC, 0, WcOpcode.SEND));
        m.put(WrOpcode.REG_MR, new OperationParams(WrShape.REG, RC | UC, 0x08, WcOpcode.REG_MR));
        m.put(WrOpcode.BIND_MW, new OperationParams(WrShape.SEND, RC | UC, 0x08, WcOpcode.BIND_MW));
        m.put(WrOpcode.ATOMIC_WRITE, new OperationParams(WrShape.RDMA, RC, 0x02, WcOpcode.ATOMIC_WRITE));
        m.put(WrOpcode.FLUSH, new OperationParams(WrShape.RDMA, RC, 0x02, WcOpcode.FLUSH));
        return m;
    }

    @Test
    void shouldHaveRdmavtFlagValuesWhenComparedWithRdmavt() {
        assertThat(OperationFlag.PRIV).isEqualTo(0x01);
        assertThat(OperationFlag.ATOMIC).isEqualTo(0x02);
        assertThat(OperationFlag.ATOMIC_SGE).isEqualTo(0x04);
        assertThat(OperationFlag.LOCAL).isEqualTo(0x08);
        assertThat(OperationFlag.USE_RESERVE).isEqualTo(0x10);
        assertThat(OperationFlag.IGN_RNR_CNT).isEqualTo(0x20);
        assertThat(OperationFlag.ALL).isEqualTo(0x3F);
        assertThat(OperationParams.QPT_ALL).isEqualTo(0x1F);
    }

    @Test
    void shouldHaveExactlyTheDocumentedEntriesWhenStandardTableIsBuilt() {
        OperationTable t = OperationTable.standard();
        Map<WrOpcode, OperationParams> expected = expectedStandard();
        for (int v = 0; v < WrOpcode.OPERATION_MAX; v++) {
            WrOpcode op = WrOpcode.ofOrNull(v);
            OperationParams want = op == null ? null : expected.get(op);
            assertThat(t.get(v)).as("opcode value %d (%s)", v, op).isEqualTo(want);
            if (op != null) {
                assertThat(t.get(op)).as("%s by enum", op).isEqualTo(want);
            }
        }
        assertThat(t.usesReserve()).isFalse();
    }

    @Test
    void shouldReturnNullWhenOpcodeIsUnsupportedOrOutOfRange() {
        OperationTable t = OperationTable.standard();
        assertThat(t.get(WrOpcode.LSO)).isNull();
        assertThat(t.get(WrOpcode.RESERVED1)).isNull();
        assertThat(t.get(250)).isNull();
        assertThat(t.get(-1)).isNull();
        assertThat(t.get(Integer.MAX_VALUE)).isNull();
        assertThat(t.get(Integer.MIN_VALUE)).isNull();
    }

    @Test
    void shouldAnswerSupportsAndHasWhenEntryIsQueried() {
        OperationParams p = OperationTable.standard().get(WrOpcode.ATOMIC_FETCH_AND_ADD);
        assertThat(p.supports(QpType.RC)).isTrue();
        assertThat(p.supports(QpType.UC)).isFalse();
        assertThat(p.supports(QpType.UD)).isFalse();
        assertThat(p.has(OperationFlag.ATOMIC)).isTrue();
        assertThat(p.has(OperationFlag.ATOMIC_SGE)).isTrue();
        assertThat(p.has(OperationFlag.LOCAL)).isFalse();
        OperationParams send = OperationTable.standard().get(WrOpcode.SEND);
        for (QpType type : QpType.values()) {
            assertThat(send.supports(type)).as(type.name()).isEqualTo(type.value() <= 4);
        }
    }

    private static void assertRefused(OperationTable.Builder b, String... parts) {
        assertThatThrownBy(b::build).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContainingAll(parts);
    }

    @Test
    void shouldRefuseLocalFlagWhenOpcodeIsNotRegMrOrLocalInv() {
        assertRefused(OperationTable.builder().op(WrOpcode.SEND, WrShape.SEND, RC, OperationFlag.LOCAL,
                WcOpcode.SEND), "SEND", "LOCAL");
        assertRefused(OperationTable.standard().toBuilder().op(WrOpcode.RESERVED4, WrShape.SEND, RC,
                OperationFlag.LOCAL, WcOpcode.SEND), "RESERVED4", "LOCAL");
    }

    @Test
    void shouldRefuseQptSupportWhenEmptyOrOutsideSmiToUd() {
        assertRefused(OperationTable.builder().op(WrOpcode.SEND, WrShape.SEND, 0, 0, WcOpcode.SEND),
                "SEND", "qptSupport");
        for (QpType raw : new QpType[] {QpType.RAW_IPV6, QpType.RAW_ETHERTYPE, QpType.RAW_PACKET, QpType.XRC_INI,
                QpType.XRC_TGT}) {
            assertRefused(OperationTable.builder().op(WrOpcode.RDMA_WRITE, WrShape.RDMA, RC | raw.bit(), 0,
                    WcOpcode.RDMA_WRITE), "RDMA_WRITE", "qptSupport", Integer.toHexString(RC | raw.bit()));
        }
        assertRefused(OperationTable.builder().op(WrOpcode.SEND, WrShape.SEND, -1, 0, WcOpcode.SEND),
                "SEND", "qptSupport");
    }

    @Test
    void shouldRefuseFlagsWhenUnknownBitIsSet() {
        assertRefused(OperationTable.builder().op(WrOpcode.SEND_WITH_IMM, WrShape.SEND, RC, 0x40, WcOpcode.SEND),
                "SEND_WITH_IMM", "unknown flags", "0x40");
        assertRefused(OperationTable.builder().op(WrOpcode.SEND, WrShape.SEND, RC, 1 << 31 | OperationFlag.PRIV,
                WcOpcode.SEND), "SEND", "0x80000000");
    }

    @Test
    void shouldRefuseRegMrWhenShapeIsNotReg() {
        for (WrShape shape : new WrShape[] {WrShape.SEND, WrShape.RDMA, WrShape.ATOMIC, WrShape.UD}) {
            assertRefused(OperationTable.builder().op(WrOpcode.REG_MR, shape, RC, OperationFlag.LOCAL,
                    WcOpcode.REG_MR), "REG_MR", "REG", shape.name());
        }
    }

    @Test
    void shouldRefuseAtomicSgeWhenShapeIsNotAtomic() {
        assertRefused(OperationTable.builder().op(WrOpcode.RDMA_READ, WrShape.RDMA, RC,
                OperationFlag.ATOMIC | OperationFlag.ATOMIC_SGE, WcOpcode.RDMA_READ), "RDMA_READ", "ATOMIC_SGE",
                "RDMA");
    }

    @Test
    void shouldRefuseNullShapeWhenEntryIsAdded() {
        assertRefused(OperationTable.builder().op(WrOpcode.SEND, null, RC, 0, WcOpcode.SEND), "SEND", "shape");
    }

    @Test
    void shouldRefuseMissingWcOpcodeUnlessEntryUsesReserve() {
        assertRefused(OperationTable.builder().op(WrOpcode.RESERVED3, WrShape.ATOMIC, RC, 0, null),
                "RESERVED3", "wcOpcode");
        OperationTable t = OperationTable.standard().toBuilder()
                .op(WrOpcode.RESERVED3, WrShape.ATOMIC, RC, OperationFlag.USE_RESERVE, null).build();
        assertThat(t.get(WrOpcode.RESERVED3)).isEqualTo(
                new OperationParams(WrShape.ATOMIC, RC, OperationFlag.USE_RESERVE, null));
        assertThat(t.usesReserve()).isTrue();
    }

    @Test
    void shouldRefuseReceiveWcOpcodeWhenEntryIsASend() {
        assertRefused(OperationTable.builder().op(WrOpcode.SEND, WrShape.SEND, RC, 0, WcOpcode.RECV),
                "SEND", "RECV", "receive");
        assertRefused(OperationTable.builder().op(WrOpcode.RDMA_WRITE_WITH_IMM, WrShape.RDMA, RC, 0,
                WcOpcode.RECV_RDMA_WITH_IMM), "RDMA_WRITE_WITH_IMM", "RECV_RDMA_WITH_IMM");
    }

    @Test
    void shouldAcceptHfi1TableWhenDriverReservedEntriesAreAdded() {
        OperationTable t = OperationTable.standard().toBuilder()
                .op(WrOpcode.RESERVED1, WrShape.RDMA, RC, OperationFlag.IGN_RNR_CNT, WcOpcode.RDMA_WRITE)
                .op(WrOpcode.RESERVED2, WrShape.RDMA, RC, 0, WcOpcode.RDMA_READ)
                .op(WrOpcode.RESERVED3, WrShape.ATOMIC, RC, OperationFlag.USE_RESERVE, null)
                .op(WrOpcode.SEND, WrShape.SEND, ALL, OperationFlag.PRIV, WcOpcode.SEND)
                .build();
        assertThat(t.get(0xF0).has(OperationFlag.IGN_RNR_CNT)).isTrue();
        assertThat(t.get(WrOpcode.SEND).has(OperationFlag.PRIV)).isTrue();
        assertThat(t.usesReserve()).isTrue();
    }

    @Test
    void shouldLeaveOriginalUntouchedWhenToBuilderIsChangedAndRemoved() {
        OperationTable original = OperationTable.standard();
        OperationTable.Builder b = original.toBuilder().remove(WrOpcode.REG_MR).remove(WrOpcode.LOCAL_INV)
                .op(WrOpcode.SEND, WrShape.SEND, RC, 0, WcOpcode.SEND);
        OperationTable changed = b.build();
        assertThat(changed.get(WrOpcode.REG_MR)).isNull();
        assertThat(changed.get(WrOpcode.LOCAL_INV)).isNull();
        assertThat(changed.get(WrOpcode.SEND).qptSupport()).isEqualTo(RC);
        assertThat(changed.get(WrOpcode.RDMA_READ)).isEqualTo(original.get(WrOpcode.RDMA_READ));
        Map<WrOpcode, OperationParams> expected = expectedStandard();
        for (WrOpcode op : WrOpcode.values()) {
            assertThat(original.get(op)).as(op.name()).isEqualTo(expected.get(op));
        }
    }

    @Test
    void shouldNotChangeBuiltTableWhenBuilderIsReusedAfterBuild() {
        OperationTable.Builder b = OperationTable.builder().op(WrOpcode.SEND, WrShape.SEND, RC, 0, WcOpcode.SEND);
        OperationTable first = b.build();
        b.remove(WrOpcode.SEND).op(WrOpcode.RDMA_WRITE, WrShape.RDMA, RC, 0, WcOpcode.RDMA_WRITE);
        OperationTable second = b.build();
        assertThat(first.get(WrOpcode.SEND)).isNotNull();
        assertThat(first.get(WrOpcode.RDMA_WRITE)).isNull();
        assertThat(second.get(WrOpcode.SEND)).isNull();
        assertThat(second.get(WrOpcode.RDMA_WRITE)).isNotNull();
    }

    @Test
    void shouldRoundTripEveryEntryWhenToBuilderIsBuiltUnchanged() {
        OperationTable original = OperationTable.standard().toBuilder()
                .op(WrOpcode.RESERVED10, WrShape.UD, QpType.UD.bit(), OperationFlag.PRIV, WcOpcode.SEND).build();
        OperationTable copy = original.toBuilder().build();
        for (int v = -1; v <= WrOpcode.OPERATION_MAX; v++) {
            assertThat(copy.get(v)).as("opcode value %d", v).isEqualTo(original.get(v));
        }
        assertThat(OperationTable.builder().build().get(WrOpcode.SEND)).isNull();
    }
}
