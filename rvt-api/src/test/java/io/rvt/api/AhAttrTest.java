package io.rvt.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;

class AhAttrTest {

    private static AhAttr full() {
        return new AhAttr().dlid(0xF000_0001).sl(15).srcPathBits(127).staticRate(3).portNum(2)
                .dgid(Gid.of(0xFE80_0000_0000_0000L, 0x0011_2233_4455_6677L)).flowLabel(0xFFFFF).sgidIndex(255)
                .hopLimit(64).trafficClass(0xA0);
    }

    private static void assertRejected(String field, IntConsumer setter, int... bad) {
        for (int v : bad) {
            assertThatThrownBy(() -> setter.accept(v)).as("%s = %d", field, v)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(field).hasMessageContaining(String.valueOf(v));
        }
    }

    @Test
    void shouldRejectFieldWhenValueDoesNotFitItsCType() {
        AhAttr a = new AhAttr();
        assertRejected("sl", a::sl, 16, -1);
        assertRejected("srcPathBits", a::srcPathBits, 128, -1);
        assertRejected("flowLabel", a::flowLabel, 1 << 20, -1);
        assertRejected("staticRate", a::staticRate, 256, -1);
        assertRejected("portNum", a::portNum, 256, -1);
        assertRejected("sgidIndex", a::sgidIndex, 256, -1);
        assertRejected("hopLimit", a::hopLimit, 256, -1);
        assertRejected("trafficClass", a::trafficClass, 256, -1);
        assertThatThrownBy(() -> a.dgid(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("dgid");
        assertThat(a.isGlobal()).isFalse();
    }

    @Test
    void shouldAcceptFieldWhenValueIsAtTheLimit() {
        AhAttr a = full();
        assertThat(a.sl()).isEqualTo(15);
        assertThat(a.srcPathBits()).isEqualTo(127);
        assertThat(a.flowLabel()).isEqualTo(0xFFFFF);
        assertThat(a.sgidIndex()).isEqualTo(255);
        assertThat(a.dlid()).isEqualTo(0xF000_0001);
        assertThat(a.portNum()).isEqualTo(2);
        assertThat(a.staticRate()).isEqualTo(3);
        assertThat(a.hopLimit()).isEqualTo(64);
        assertThat(a.trafficClass()).isEqualTo(0xA0);
    }

    @Test
    void shouldMarkGlobalWhenDgidIsSet() {
        AhAttr a = new AhAttr();
        assertThat(a.isGlobal()).isFalse();
        assertThat(a.dgid()).isEqualTo(Gid.ZERO);
        a.dgid(Gid.of(1, 2));
        assertThat(a.isGlobal()).isTrue();
        a.global(false);
        assertThat(a.isGlobal()).isFalse();
        assertThat(a.dgid()).isEqualTo(Gid.of(1, 2));
    }

    @Test
    void shouldCopyEveryFieldWhenCopyFromIsCalled() {
        AhAttr src = full();
        TestFields.assertEveryFieldDiffers(new AhAttr(), src);
        AhAttr dst = new AhAttr().dlid(9).sl(1);
        assertThat(dst.copyFrom(src)).isSameAs(dst);
        TestFields.assertSameFieldValues(src, dst);
    }

    @Test
    void shouldResetEveryFieldWhenCleared() {
        AhAttr a = full();
        assertThat(a.clear()).isSameAs(a);
        TestFields.assertSameFieldValues(new AhAttr(), a);
    }

    @Test
    void shouldConvertRateCodesLikeIbRateToMbpsWhenRateIsValid() {
        int[][] table = {
            {2, 2500}, {5, 5000}, {3, 10000}, {6, 20000}, {4, 30000}, {7, 40000}, {8, 60000}, {9, 80000},
            {10, 120000}, {11, 14062}, {12, 56250}, {13, 112500}, {14, 168750}, {15, 25781}, {16, 103125},
            {17, 206250}, {18, 309375}, {19, 28125}, {20, 53125}, {21, 425000}, {22, 637500},
        };
        for (int[] row : table) {
            assertThat(AhAttr.rateToMbps(row[0])).as("rate %d", row[0]).isEqualTo(row[1]);
        }
        assertThat(AhAttr.rateToMbps(AhAttr.RATE_PORT_CURRENT)).isEqualTo(-1);
        assertThat(AhAttr.rateToMbps(1)).isEqualTo(-1);
        assertThat(AhAttr.rateToMbps(-1)).isEqualTo(-1);
        assertThat(AhAttr.rateToMbps(255)).isEqualTo(-1);
    }
}
