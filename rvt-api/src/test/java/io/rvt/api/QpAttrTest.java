package io.rvt.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.function.ToIntFunction;
import org.junit.jupiter.api.Test;

class QpAttrTest {

    private static Map<String, IntConsumer> u8Setters(QpAttr a) {
        Map<String, IntConsumer> m = new LinkedHashMap<>();
        m.put("maxRdAtomic", a::maxRdAtomic);
        m.put("maxDestRdAtomic", a::maxDestRdAtomic);
        m.put("minRnrTimer", a::minRnrTimer);
        m.put("portNum", a::portNum);
        m.put("timeout", a::timeout);
        m.put("retryCnt", a::retryCnt);
        m.put("rnrRetry", a::rnrRetry);
        m.put("altPortNum", a::altPortNum);
        m.put("altTimeout", a::altTimeout);
        return m;
    }

    private static Map<String, ToIntFunction<QpAttr>> u8Getters() {
        Map<String, ToIntFunction<QpAttr>> m = new LinkedHashMap<>();
        m.put("maxRdAtomic", QpAttr::maxRdAtomic);
        m.put("maxDestRdAtomic", QpAttr::maxDestRdAtomic);
        m.put("minRnrTimer", QpAttr::minRnrTimer);
        m.put("portNum", QpAttr::portNum);
        m.put("timeout", QpAttr::timeout);
        m.put("retryCnt", QpAttr::retryCnt);
        m.put("rnrRetry", QpAttr::rnrRetry);
        m.put("altPortNum", QpAttr::altPortNum);
        m.put("altTimeout", QpAttr::altTimeout);
        return m;
    }

    @Test
    void shouldRejectU8FieldWhenValueIs256OrNegative() {
        QpAttr a = new QpAttr();
        u8Setters(a).forEach((field, setter) -> {
            setter.accept(7);
            for (int bad : new int[] {256, -1, 1000}) {
                assertThatThrownBy(() -> setter.accept(bad)).as("%s = %d", field, bad)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining(field).hasMessageContaining(String.valueOf(bad));
            }
            assertThat(u8Getters().get(field).applyAsInt(a)).as("%s unchanged after refusals", field).isEqualTo(7);
        });
    }

    @Test
    void shouldAcceptU8FieldWhenValueIs255() {
        QpAttr a = new QpAttr();
        u8Setters(a).values().forEach(s -> s.accept(255));
        u8Getters().forEach((field, g) -> assertThat(g.applyAsInt(a)).as(field).isEqualTo(255));
    }

    @Test
    void shouldRejectPkeyIndexWhenAbove65535() {
        QpAttr a = new QpAttr();
        assertThat(a.pkeyIndex(65535).pkeyIndex()).isEqualTo(65535);
        assertThat(a.altPkeyIndex(65535).altPkeyIndex()).isEqualTo(65535);
        assertThatThrownBy(() -> a.pkeyIndex(65536)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("pkeyIndex").hasMessageContaining("65536");
        assertThatThrownBy(() -> a.altPkeyIndex(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("altPkeyIndex").hasMessageContaining("-1");
    }

    @Test
    void shouldRejectNullEnumWhenSet() {
        QpAttr a = new QpAttr();
        Map<String, Consumer<QpAttr>> nulls = new LinkedHashMap<>();
        nulls.put("qpState", x -> x.qpState(null));
        nulls.put("curQpState", x -> x.curQpState(null));
        nulls.put("pathMtu", x -> x.pathMtu(null));
        nulls.put("pathMigState", x -> x.pathMigState(null));
        nulls.forEach((field, c) -> assertThatThrownBy(() -> c.accept(a)).as(field)
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(field));
    }

    @Test
    void shouldHaveIbDefaultsAndOwnNestedObjectsWhenCreated() {
        QpAttr a = new QpAttr();
        assertThat(a.qpState()).isEqualTo(QpState.RESET);
        assertThat(a.curQpState()).isEqualTo(QpState.RESET);
        assertThat(a.pathMigState()).isEqualTo(MigState.MIGRATED);
        assertThat(a.cap()).isSameAs(a.cap());
        assertThat(a.ahAttr()).isSameAs(a.ahAttr()).isNotSameAs(a.altAhAttr());
        assertThat(new QpAttr().ahAttr()).isNotSameAs(a.ahAttr());
    }

    @Test
    void shouldKeepUncheckedFieldsAsGivenWhenSet() {
        QpAttr a = new QpAttr().qkey(0x8000_0001).rqPsn(-1).sqPsn(0x1FF_FFFF).destQpNum(0x1000000)
                .qpAccessFlags(0xFF).enSqdAsyncNotify(true).sqDraining(true).qpState(QpState.RTS)
                .curQpState(QpState.RTR).pathMtu(PathMtu.MTU_4096).pathMigState(MigState.ARMED);
        assertThat(a.qkey()).isEqualTo(0x8000_0001);
        assertThat(a.rqPsn()).isEqualTo(-1);
        assertThat(a.sqPsn()).isEqualTo(0x1FF_FFFF);
        assertThat(a.destQpNum()).isEqualTo(0x1000000);
        assertThat(a.qpAccessFlags()).isEqualTo(0xFF);
        assertThat(a.enSqdAsyncNotify()).isTrue();
        assertThat(a.sqDraining()).isTrue();
        assertThat(a.qpState()).isEqualTo(QpState.RTS);
        assertThat(a.curQpState()).isEqualTo(QpState.RTR);
        assertThat(a.pathMtu()).isEqualTo(PathMtu.MTU_4096);
        assertThat(a.pathMigState()).isEqualTo(MigState.ARMED);
    }
}
