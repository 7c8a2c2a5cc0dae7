package io.rvt.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.ToIntFunction;
import org.junit.jupiter.api.Test;

/** Numeric values of the verbs enums against rdmavt-semantics.md §0.4, value by value. */
class EnumValuesTest {

    /** Asserts that {@code values()} of the enum maps exactly onto {@code expected} (name → value), in any order. */
    private static <E extends Enum<E>> void assertValues(Class<E> type, ToIntFunction<E> value,
            Map<String, Integer> expected) {
        Map<String, Integer> actual = new LinkedHashMap<>();
        for (E e : type.getEnumConstants()) {
            actual.put(e.name(), value.applyAsInt(e));
        }
        assertThat(actual).as(type.getSimpleName()).containsExactlyInAnyOrderEntriesOf(expected);
    }

    private static Map<String, Integer> map(Object... kv) {
        Map<String, Integer> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], (Integer) kv[i + 1]);
        }
        return m;
    }

    // ------------------------------------------------------------------ QpType

    @Test
    void shouldHaveIbQpTypeValuesWhenComparedWithIbVerbs() {
        assertValues(QpType.class, QpType::value, map("SMI", 0, "GSI", 1, "RC", 2, "UC", 3, "UD", 4,
                "RAW_IPV6", 5, "RAW_ETHERTYPE", 6, "RAW_PACKET", 8, "XRC_INI", 9, "XRC_TGT", 10));
    }

    @Test
    void shouldGiveQptSupportBitsWhenBitIsAsked() {
        assertValues(QpType.class, QpType::bit, map("SMI", 0x01, "GSI", 0x02, "RC", 0x04, "UC", 0x08, "UD", 0x10,
                "RAW_IPV6", 1 << 5, "RAW_ETHERTYPE", 1 << 6, "RAW_PACKET", 1 << 8, "XRC_INI", 1 << 9,
                "XRC_TGT", 1 << 10));
    }

    @Test
    void shouldFindQpTypeWhenValueIsKnown() {
        for (QpType t : QpType.values()) {
            assertThat(QpType.of(t.value())).isSameAs(t);
        }
    }

    @Test
    void shouldRejectQpTypeWhenValueIsUnknown() {
        for (int v : new int[] {-1, 7, 11, 255, Integer.MIN_VALUE}) {
            assertThatThrownBy(() -> QpType.of(v)).as("value %d", v)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(String.valueOf(v));
        }
    }

    @Test
    void shouldBeUdLikeWhenTypeIsUdSmiOrGsi() {
        assertThat(Arrays.stream(QpType.values()).filter(QpType::isUdLike))
                .containsExactlyInAnyOrder(QpType.UD, QpType.SMI, QpType.GSI);
    }

    // ------------------------------------------------------------------ QpState

    @Test
    void shouldHaveIbQpStateValuesWhenComparedWithIbVerbs() {
        assertValues(QpState.class, QpState::value,
                map("RESET", 0, "INIT", 1, "RTR", 2, "RTS", 3, "SQD", 4, "SQE", 5, "ERR", 6));
    }

    @Test
    void shouldHaveRvtStateOpsBitValuesWhenComparedWithRdmavt() {
        assertThat(QpState.Ops.POST_SEND_OK).isEqualTo(0x01);
        assertThat(QpState.Ops.POST_RECV_OK).isEqualTo(0x02);
        assertThat(QpState.Ops.PROCESS_RECV_OK).isEqualTo(0x04);
        assertThat(QpState.Ops.PROCESS_SEND_OK).isEqualTo(0x08);
        assertThat(QpState.Ops.PROCESS_NEXT_SEND_OK).isEqualTo(0x10);
        assertThat(QpState.Ops.FLUSH_SEND).isEqualTo(0x20);
        assertThat(QpState.Ops.FLUSH_RECV).isEqualTo(0x40);
        assertThat(QpState.Ops.PROCESS_OR_FLUSH_SEND).isEqualTo(0x08 | 0x20);
        assertThat(QpState.Ops.SEND_OR_FLUSH_OR_RECV_OK).isEqualTo(0x08 | 0x20 | 0x04);
    }

    @Test
    void shouldHaveOpsOfStateTableWhenEachStateIsAsked() {
        // rdmavt-semantics.md §1.3
        assertValues(QpState.class, QpState::ops, map(
                "RESET", 0,
                "INIT", 0x02,
                "RTR", 0x02 | 0x04,
                "RTS", 0x01 | 0x02 | 0x04 | 0x08 | 0x10,
                "SQD", 0x01 | 0x02 | 0x04 | 0x08,
                "SQE", 0x01 | 0x02 | 0x04 | 0x20,
                "ERR", 0x01 | 0x02 | 0x20 | 0x40));
    }

    @Test
    void shouldAnswerCanWhenAnyBitOfMaskIsSet() {
        assertThat(QpState.RESET.can(0x7F)).isFalse();
        assertThat(QpState.INIT.can(QpState.Ops.POST_SEND_OK)).isFalse();
        assertThat(QpState.INIT.can(QpState.Ops.POST_SEND_OK | QpState.Ops.POST_RECV_OK)).isTrue();
        assertThat(QpState.SQD.can(QpState.Ops.PROCESS_NEXT_SEND_OK)).isFalse();
        assertThat(QpState.ERR.can(QpState.Ops.PROCESS_OR_FLUSH_SEND)).isTrue();
        assertThat(QpState.RTR.can(QpState.Ops.SEND_OR_FLUSH_OR_RECV_OK)).isTrue();
        assertThat(QpState.INIT.can(QpState.Ops.SEND_OR_FLUSH_OR_RECV_OK)).isFalse();
        assertThat(QpState.RTS.can(0)).isFalse();
    }

    @Test
    void shouldFindQpStateWhenValueIsKnownAndRejectOtherwise() {
        for (QpState s : QpState.values()) {
            assertThat(QpState.of(s.value())).isSameAs(s);
        }
        assertThatThrownBy(() -> QpState.of(7)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("7");
        assertThatThrownBy(() -> QpState.of(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-1");
    }

    // ------------------------------------------------------------------ WrOpcode

    @Test
    void shouldHaveIbWrOpcodeValuesWhenComparedWithIbVerbs() {
        assertValues(WrOpcode.class, WrOpcode::value, map(
                "RDMA_WRITE", 0, "RDMA_WRITE_WITH_IMM", 1, "SEND", 2, "SEND_WITH_IMM", 3, "RDMA_READ", 4,
                "ATOMIC_CMP_AND_SWP", 5, "ATOMIC_FETCH_AND_ADD", 6, "LOCAL_INV", 7, "BIND_MW", 8, "SEND_WITH_INV", 9,
                "LSO", 10, "RDMA_READ_WITH_INV", 11, "MASKED_ATOMIC_CMP_AND_SWP", 12,
                "MASKED_ATOMIC_FETCH_AND_ADD", 13, "FLUSH", 14, "ATOMIC_WRITE", 15,
                "REG_MR", 0x20, "REG_MR_INTEGRITY", 0x21,
                "RESERVED1", 0xF0, "RESERVED2", 0xF1, "RESERVED3", 0xF2, "RESERVED4", 0xF3, "RESERVED5", 0xF4,
                "RESERVED6", 0xF5, "RESERVED7", 0xF6, "RESERVED8", 0xF7, "RESERVED9", 0xF8, "RESERVED10", 0xF9));
        assertThat(WrOpcode.OPERATION_MAX).isEqualTo(0xFA).isEqualTo(WrOpcode.RESERVED10.value() + 1);
    }

    @Test
    void shouldFindEveryWrOpcodeWhenValueIsKnown() {
        for (WrOpcode op : WrOpcode.values()) {
            assertThat(WrOpcode.of(op.value())).isSameAs(op);
            assertThat(WrOpcode.ofOrNull(op.value())).isSameAs(op);
        }
    }

    @Test
    void shouldReturnNullOrThrowWhenWrOpcodeValueIsUnknown() {
        int known = 0;
        for (int v = -2; v <= 0x1FF; v++) {
            WrOpcode op = WrOpcode.ofOrNull(v);
            boolean isKnown = (v >= 0 && v <= 15) || v == 0x20 || v == 0x21 || (v >= 0xF0 && v <= 0xF9);
            if (isKnown) {
                known++;
                assertThat(op).as("value %d", v).isNotNull();
            } else {
                int value = v;
                assertThat(op).as("value %d", v).isNull();
                assertThatThrownBy(() -> WrOpcode.of(value)).as("value %d", v)
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(String.valueOf(v));
            }
        }
        assertThat(known).isEqualTo(WrOpcode.values().length);
        assertThat(WrOpcode.ofOrNull(WrOpcode.OPERATION_MAX)).isNull();
        assertThat(WrOpcode.ofOrNull(Integer.MIN_VALUE)).isNull();
        assertThat(WrOpcode.ofOrNull(Integer.MAX_VALUE)).isNull();
    }

    @Test
    void shouldBeDriverReservedWhenOpcodeIsReserved1To10() {
        for (WrOpcode op : WrOpcode.values()) {
            assertThat(op.isDriverReserved()).as(op.name()).isEqualTo(op.name().startsWith("RESERVED"));
        }
    }

    // ------------------------------------------------------------------ WcOpcode, WcStatus

    @Test
    void shouldHaveIbWcOpcodeValuesWhenComparedWithIbVerbs() {
        assertValues(WcOpcode.class, WcOpcode::value, map("SEND", 0, "RDMA_WRITE", 1, "RDMA_READ", 2,
                "COMP_SWAP", 3, "FETCH_ADD", 4, "BIND_MW", 5, "LOCAL_INV", 6, "LSO", 7, "FLUSH", 8, "ATOMIC_WRITE", 9,
                "REG_MR", 10,
                "RECV", 128,
                "RECV_RDMA_WITH_IMM", 129));
    }

    @Test
    void shouldBeRecvWhenWcOpcodeHasBit7() {
        for (WcOpcode op : WcOpcode.values()) {
            assertThat(op.isRecv()).as(op.name()).isEqualTo(op == WcOpcode.RECV || op == WcOpcode.RECV_RDMA_WITH_IMM);
            assertThat(WcOpcode.of(op.value())).isSameAs(op);
        }
        assertThatThrownBy(() -> WcOpcode.of(11)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("11");
        assertThatThrownBy(() -> WcOpcode.of(130)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("130");
    }

    @Test
    void shouldHaveAll22IbWcStatusValuesWhenComparedWithIbVerbs() {
        assertValues(WcStatus.class, WcStatus::value, map(
                "SUCCESS", 0, "LOC_LEN_ERR", 1, "LOC_QP_OP_ERR", 2, "LOC_EEC_OP_ERR", 3, "LOC_PROT_ERR", 4,
                "WR_FLUSH_ERR", 5, "MW_BIND_ERR", 6, "BAD_RESP_ERR", 7, "LOC_ACCESS_ERR", 8, "REM_INV_REQ_ERR", 9,
                "REM_ACCESS_ERR", 10, "REM_OP_ERR", 11, "RETRY_EXC_ERR", 12, "RNR_RETRY_EXC_ERR", 13,
                "LOC_RDD_VIOL_ERR", 14, "REM_INV_RD_REQ_ERR", 15, "REM_ABORT_ERR", 16, "INV_EECN_ERR", 17,
                "INV_EEC_STATE_ERR", 18, "FATAL_ERR", 19, "RESP_TIMEOUT_ERR", 20, "GENERAL_ERR", 21));
        assertThat(WcStatus.values()).hasSize(22);
    }

    @Test
    void shouldFindWcStatusWhenValueIsKnownAndRejectOtherwise() {
        for (WcStatus s : WcStatus.values()) {
            assertThat(WcStatus.of(s.value())).isSameAs(s);
        }
        assertThatThrownBy(() -> WcStatus.of(22)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("22");
        assertThatThrownBy(() -> WcStatus.of(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-1");
    }

    // ------------------------------------------------------------------ flag enums

    @Test
    void shouldHaveIbWcFlagsBitsWhenComparedWithIbVerbs() {
        assertValues(WcFlag.class, WcFlag::bit, map("GRH", 1, "WITH_IMM", 2, "WITH_INVALIDATE", 4));
    }

    @Test
    void shouldHaveIbAccessFlagsBitsWhenComparedWithIbVerbs() {
        assertValues(AccessFlag.class, AccessFlag::bit, map("LOCAL_WRITE", 1, "REMOTE_WRITE", 2, "REMOTE_READ", 4,
                "REMOTE_ATOMIC", 8, "MW_BIND", 16, "ZERO_BASED", 32, "ON_DEMAND", 64, "HUGETLB", 128,
                "FLUSH_GLOBAL", 256, "FLUSH_PERSISTENT", 512));
    }

    @Test
    void shouldHaveIbSendFlagsBitsWhenComparedWithIbVerbs() {
        assertValues(SendFlag.class, SendFlag::bit,
                map("FENCE", 1, "SIGNALED", 2, "SOLICITED", 4, "INLINE", 8, "IP_CSUM", 16));
    }

    @Test
    void shouldHaveIbQpAttrMaskBitsWhenComparedWithIbVerbs() {
        assertValues(QpAttrMask.class, QpAttrMask::bit, map(
                "STATE", 1, "CUR_STATE", 1 << 1, "EN_SQD_ASYNC_NOTIFY", 1 << 2, "ACCESS_FLAGS", 1 << 3,
                "PKEY_INDEX", 1 << 4, "PORT", 1 << 5, "QKEY", 1 << 6, "AV", 1 << 7, "PATH_MTU", 1 << 8,
                "TIMEOUT", 1 << 9, "RETRY_CNT", 1 << 10, "RNR_RETRY", 1 << 11, "RQ_PSN", 1 << 12,
                "MAX_QP_RD_ATOMIC", 1 << 13, "ALT_PATH", 1 << 14, "MIN_RNR_TIMER", 1 << 15, "SQ_PSN", 1 << 16,
                "MAX_DEST_RD_ATOMIC", 1 << 17, "PATH_MIG_STATE", 1 << 18, "CAP", 1 << 19, "DEST_QPN", 1 << 20,
                "RATE_LIMIT", 1 << 25));
        assertThat(QpAttrMask.STANDARD_BITS).isEqualTo(0x1FFFFF);
        assertThat(QpAttrMask.ALL).isEqualTo(0x1FFFFF | (1 << 25));
        assertThat(QpAttrMask.RATE_LIMIT.in(QpAttrMask.STANDARD_BITS)).isFalse();
    }

    @Test
    void shouldHaveIbCqNotifyFlagsBitsWhenComparedWithIbVerbs() {
        assertValues(CqNotify.class, CqNotify::bit, map("SOLICITED", 1, "NEXT_COMP", 2, "REPORT_MISSED_EVENTS", 4));
        // IB_CQ_SOLICITED_MASK = SOLICITED | NEXT_COMP
        assertThat(CqNotify.mask(CqNotify.SOLICITED, CqNotify.NEXT_COMP)).isEqualTo(3);
    }

    @Test
    void shouldHaveIbSrqAttrMaskBitsWhenComparedWithIbVerbs() {
        assertValues(SrqAttrMask.class, SrqAttrMask::bit, map("MAX_WR", 1, "LIMIT", 2));
    }

    @Test
    void shouldHaveIbPortModifyFlagsBitsWhenComparedWithIbVerbs() {
        assertValues(PortModifyFlag.class, PortModifyFlag::bit,
                map("SHUTDOWN", 1, "INIT_TYPE", 4, "RESET_QKEY_CNTR", 8, "OPA_MASK_CHG", 16));
    }

    // ------------------------------------------------------------------ PathMtu and small enums

    @Test
    void shouldHaveIbMtuValuesAndBytesWhenComparedWithIbVerbs() {
        assertValues(PathMtu.class, PathMtu::value, map("MTU_256", 1, "MTU_512", 2, "MTU_1024", 3, "MTU_2048", 4,
                "MTU_4096", 5, "MTU_8192", 6, "MTU_10240", 7));
        assertValues(PathMtu.class, PathMtu::bytes, map("MTU_256", 256, "MTU_512", 512, "MTU_1024", 1024,
                "MTU_2048", 2048, "MTU_4096", 4096, "MTU_8192", 8192, "MTU_10240", 10240));
    }

    @Test
    void shouldFindPathMtuWhenValueOrBytesAreKnown() {
        for (PathMtu m : PathMtu.values()) {
            assertThat(PathMtu.of(m.value())).isSameAs(m);
            assertThat(PathMtu.ofBytes(m.bytes())).isSameAs(m);
        }
    }

    @Test
    void shouldRejectPathMtuWhenValueOrBytesAreUnknown() {
        for (int v : new int[] {0, 8, -1}) {
            assertThatThrownBy(() -> PathMtu.of(v)).as("value %d", v).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(String.valueOf(v));
        }
        for (int b : new int[] {0, 128, 1000, 1025, 4097, 16384}) {
            assertThatThrownBy(() -> PathMtu.ofBytes(b)).as("bytes %d", b)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(String.valueOf(b));
        }
    }

    @Test
    void shouldHaveIbMigStateValuesWhenComparedWithIbVerbs() {
        assertValues(MigState.class, MigState::value, map("MIGRATED", 0, "REARM", 1, "ARMED", 2));
    }

    @Test
    void shouldHaveIbPortStateValuesWhenComparedWithIbVerbs() {
        assertValues(PortState.class, PortState::value,
                map("NOP", 0, "DOWN", 1, "INIT", 2, "ARMED", 3, "ACTIVE", 4, "ACTIVE_DEFER", 5));
    }

    @Test
    void shouldHaveIbSigTypeValuesWhenComparedWithIbVerbs() {
        assertValues(SigType.class, SigType::value, map("SIGNAL_ALL_WR", 0, "SIGNAL_REQ_WR", 1));
    }

    @Test
    void shouldHaveIbEventTypeValuesWhenComparedWithIbVerbs() {
        assertValues(AsyncEventType.class, AsyncEventType::value, map(
                "CQ_ERR", 0, "QP_FATAL", 1, "QP_REQ_ERR", 2, "QP_ACCESS_ERR", 3, "COMM_EST", 4, "SQ_DRAINED", 5,
                "PATH_MIG", 6, "PATH_MIG_ERR", 7, "DEVICE_FATAL", 8, "PORT_ACTIVE", 9, "PORT_ERR", 10,
                "LID_CHANGE", 11, "PKEY_CHANGE", 12, "SM_CHANGE", 13, "SRQ_ERR", 14, "SRQ_LIMIT_REACHED", 15,
                "QP_LAST_WQE_REACHED", 16, "CLIENT_REREGISTER", 17, "GID_CHANGE", 18, "DEVICE_REMOVAL", 0x100));
    }

    // ------------------------------------------------------------------ Errno

    @Test
    void shouldHaveLinuxErrnoValuesWhenComparedWithLinux() {
        assertValues(Errno.class, Errno::value, map("EPERM", 1, "ENOENT", 2, "EINTR", 4, "EIO", 5, "EBADF", 9,
                "EAGAIN", 11, "ENOMEM", 12, "EACCES", 13, "EFAULT", 14, "EBUSY", 16, "ENODEV", 19, "EINVAL", 22,
                "ENFILE", 23, "EMFILE", 24, "EMSGSIZE", 90, "EPROTONOSUPPORT", 93, "EOPNOTSUPP", 95,
                "EAFNOSUPPORT", 97,
                "EADDRINUSE", 98, "EADDRNOTAVAIL", 99, "ENETUNREACH", 101, "ECONNRESET", 104, "ENOBUFS", 105,
                "ETIMEDOUT", 110, "ECONNREFUSED", 111, "EHOSTUNREACH", 113, "OTHER", 0));
    }

    @Test
    void shouldNameEveryConstantAsLinuxDoesWhenComparedWithTheNameTable() {
        for (Errno e : Errno.values()) {
            if (e != Errno.OTHER) {
                assertThat(Errno.linuxName(e.value())).isEqualTo(e.name());
            }
        }
    }

    @Test
    void shouldDescribeAnErrnoByNameNumberAndMeaningWhenAMessageNamesIt() {
        assertThat(Errno.describe(98)).isEqualTo("EADDRINUSE (98, address already in use)");
        assertThat(Errno.describe(-22)).isEqualTo("EINVAL (22, invalid argument)");
        assertThat(Errno.describe(7)).isEqualTo("E2BIG (7)");
        assertThat(Errno.describe(200)).isEqualTo("errno 200 (200)");
        assertThat(Errno.describe(Integer.MIN_VALUE)).isEqualTo("errno 2147483648 (2147483648)");
    }

    @Test
    void shouldFindErrnoWhenValueIsPositiveOrNegated() {
        assertThat(Errno.of(-22)).isSameAs(Errno.EINVAL);
        assertThat(Errno.of(22)).isSameAs(Errno.EINVAL);
        assertThat(Errno.of(-12)).isSameAs(Errno.ENOMEM);
        for (Errno e : Errno.values()) {
            if (e == Errno.OTHER) {
                continue;
            }
            assertThat(Errno.of(e.value())).isSameAs(e);
            assertThat(Errno.of(-e.value())).isSameAs(e);
        }
    }

    @Test
    void shouldRejectErrnoWhenValueIsUnknown() {
        for (int v : new int[] {0, 3, -3, 96, Integer.MIN_VALUE}) {
            assertThatThrownBy(() -> Errno.of(v)).as("value %d", v).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(String.valueOf(v));
        }
    }

    @Test
    void shouldMapAnyErrnoWithoutFailingWhenADriverReturnsOneRvtHasNoConstantFor() {
        assertThat(Errno.find(-7)).isSameAs(Errno.OTHER);
        assertThat(Errno.find(-22)).isSameAs(Errno.EINVAL);
        assertThat(Errno.find(0)).isSameAs(Errno.OTHER);
        assertThat(Errno.find(Integer.MIN_VALUE)).isSameAs(Errno.OTHER);
        assertThat(Errno.linuxName(-7)).isEqualTo("E2BIG");
        assertThat(Errno.linuxName(133)).isEqualTo("EHWPOISON");
        assertThat(Errno.linuxName(61)).isEqualTo("ENODATA");
        assertThat(Errno.linuxName(71)).isEqualTo("EPROTO");
        assertThat(Errno.linuxName(125)).isEqualTo("ECANCELED");
        for (Errno known : Errno.values()) {
            if (known != Errno.OTHER) {
                assertThat(Errno.linuxName(known.value())).isEqualTo(known.name());
            }
        }
        assertThat(Errno.linuxName(4000)).isEqualTo("errno 4000");
        VerbsException e = new VerbsException(-7, "setup_wqe refused");
        assertThat(e.errno()).isSameAs(Errno.OTHER);
        assertThat(e.errnoValue()).isEqualTo(7);
        assertThat(e).hasMessage("setup_wqe refused (E2BIG, errno 7)");
        WorkRequestException w = new WorkRequestException(-22, 1, "bad");
        assertThat(w.errno()).isSameAs(Errno.EINVAL);
        assertThat(w).hasMessage("work request 1: bad (EINVAL)");
        assertThat(new VerbsException(Errno.ENOMEM, "full").errnoValue()).isEqualTo(12);
    }
}
