package io.rvt.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The shared behaviour of the flag enums: {@code bit}, {@code in}, {@code mask}, {@code ALL}, {@code describe}. */
class FlagEnumsTest {

    /** Reflective view of one flag enum. */
    private static final class Flags {
        final Class<?> type;
        final Object[] constants;

        Flags(Class<?> type) {
            this.type = type;
            this.constants = type.getEnumConstants();
        }

        int bit(Object c) throws Exception {
            return (int) type.getMethod("bit").invoke(c);
        }

        boolean in(Object c, int mask) throws Exception {
            return (boolean) type.getMethod("in", int.class).invoke(c, mask);
        }

        int mask(Object... cs) throws Exception {
            Object arr = Array.newInstance(type, cs.length);
            for (int i = 0; i < cs.length; i++) {
                Array.set(arr, i, cs[i]);
            }
            Method m = type.getMethod("mask", arr.getClass());
            return (int) m.invoke(null, arr);
        }

        int all() throws Exception {
            return type.getField("ALL").getInt(null);
        }

        String describe(int mask) throws Exception {
            return (String) type.getMethod("describe", int.class).invoke(null, mask);
        }
    }

    @ParameterizedTest
    @ValueSource(classes = {AccessFlag.class, SendFlag.class, WcFlag.class, QpAttrMask.class, CqNotify.class,
            SrqAttrMask.class, PortModifyFlag.class})
    void shouldHaveOneDistinctBitPerConstantWhenFlagEnumIsDefined(Class<?> type) throws Exception {
        Flags f = new Flags(type);
        int union = 0;
        for (Object c : f.constants) {
            int bit = f.bit(c);
            assertThat(Integer.bitCount(bit)).as("%s.%s", type.getSimpleName(), c).isEqualTo(1);
            assertThat(union & bit).as("%s.%s overlaps", type.getSimpleName(), c).isZero();
            union |= bit;
        }
        assertThat(f.all()).as("%s.ALL", type.getSimpleName()).isEqualTo(union);
        assertThat(f.mask(f.constants)).isEqualTo(union);
        assertThat(f.mask()).isZero();
    }

    @ParameterizedTest
    @ValueSource(classes = {AccessFlag.class, SendFlag.class, WcFlag.class, QpAttrMask.class, CqNotify.class,
            SrqAttrMask.class, PortModifyFlag.class})
    void shouldShareTheOneHelperWhenFlagEnumIsDefined(Class<?> type) throws Exception {
        assertThat(BitFlag.class.isAssignableFrom(type)).as("%s implements BitFlag", type.getSimpleName()).isTrue();
        Flags f = new Flags(type);
        BitFlag[] flags = (BitFlag[]) f.constants;
        assertThat(f.all()).isEqualTo(BitFlag.union(flags));
        assertThat(f.describe(-1)).isEqualTo(BitFlag.describe(-1, flags));
    }

    @ParameterizedTest
    @ValueSource(classes = {AccessFlag.class, SendFlag.class, WcFlag.class, QpAttrMask.class, CqNotify.class,
            SrqAttrMask.class, PortModifyFlag.class})
    void shouldReportInOnlyWhenOwnBitIsSet(Class<?> type) throws Exception {
        Flags f = new Flags(type);
        for (Object c : f.constants) {
            int bit = f.bit(c);
            assertThat(f.in(c, bit)).isTrue();
            assertThat(f.in(c, ~bit)).isFalse();
            assertThat(f.in(c, -1)).isTrue();
            assertThat(f.in(c, 0)).isFalse();
        }
    }

    @ParameterizedTest
    @ValueSource(classes = {AccessFlag.class, SendFlag.class, WcFlag.class, QpAttrMask.class, CqNotify.class,
            SrqAttrMask.class, PortModifyFlag.class})
    void shouldDescribeEverySingleFlagByNameWhenMaskHasOneBit(Class<?> type) throws Exception {
        Flags f = new Flags(type);
        assertThat(f.describe(0)).isEqualTo("0");
        for (Object c : f.constants) {
            assertThat(f.describe(f.bit(c))).isEqualTo(((Enum<?>) c).name());
        }
    }

    @ParameterizedTest
    @ValueSource(classes = {AccessFlag.class, SendFlag.class, WcFlag.class, QpAttrMask.class, CqNotify.class,
            SrqAttrMask.class, PortModifyFlag.class})
    void shouldDescribeKnownNamesThenUnknownBitsInHexWhenMaskIsRandom(Class<?> type) throws Exception {
        Flags f = new Flags(type);
        long seed = 0x5EED_F1A6L ^ type.getName().hashCode();
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int i = 0; i < 500; i++) {
            int mask = rnd.nextInt();
            StringBuilder expected = new StringBuilder();
            int rest = mask;
            for (Object c : f.constants) {
                int bit = f.bit(c);
                if ((mask & bit) != 0) {
                    expected.append(expected.length() > 0 ? "|" : "").append(((Enum<?>) c).name());
                    rest &= ~bit;
                }
            }
            if (rest != 0) {
                expected.append(expected.length() > 0 ? "|" : "").append("0x").append(Integer.toHexString(rest));
            }
            if (mask == 0) {
                expected.append('0');
            }
            assertThat(f.describe(mask)).as("seed %d, mask 0x%x", seed, mask).isEqualTo(expected.toString());
        }
    }

    @Test
    void shouldDescribeUnknownBitsInHexWhenNoFlagMatches() {
        assertThat(AccessFlag.describe(0x400)).isEqualTo("0x400");
        assertThat(AccessFlag.describe(AccessFlag.LOCAL_WRITE.bit() | AccessFlag.REMOTE_READ.bit()))
                .isEqualTo("LOCAL_WRITE|REMOTE_READ");
        assertThat(AccessFlag.describe(1 | 0xC00)).isEqualTo("LOCAL_WRITE|0xc00");
        assertThat(SendFlag.describe(SendFlag.SIGNALED.bit() | (1 << 26))).isEqualTo("SIGNALED|0x4000000");
        assertThat(SendFlag.describe(0x8000_0000)).isEqualTo("0x80000000");
        assertThat(QpAttrMask.describe(QpAttrMask.STATE.bit() | (1 << 21))).isEqualTo("STATE|0x200000");
        assertThat(WcFlag.describe(WcFlag.WITH_IMM.bit() | 8)).isEqualTo("WITH_IMM|0x8");
        assertThat(CqNotify.describe(3)).isEqualTo("SOLICITED|NEXT_COMP");
        assertThat(SrqAttrMask.describe(4)).isEqualTo("0x4");
        assertThat(PortModifyFlag.describe(2)).isEqualTo("0x2");
    }
}
