package io.rvt.api.spi;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.DeviceAttributes;
import io.rvt.api.TestFields;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DriverParamsTest {

    /** Sets every int field of the builder to a distinct value (and props); returns name → value. */
    private static Map<String, Object> fillDistinct(DriverParams.Builder b, DeviceAttributes props)
            throws Exception {
        Map<String, Object> values = new LinkedHashMap<>();
        int i = 101;
        for (Method m : DriverParams.Builder.class.getDeclaredMethods()) {
            if (!Modifier.isPublic(m.getModifiers()) || m.getParameterCount() != 1
                    || m.getReturnType() != DriverParams.Builder.class) {
                continue;
            }
            Object v = m.getParameterTypes()[0] == DeviceAttributes.class ? props : (Object) (i++);
            m.invoke(b, v);
            values.put(m.getName(), v);
        }
        return values;
    }

    @Test
    void shouldReturnEachBuilderValueWhenAccessorIsCalled() throws Exception {
        DeviceAttributes props = DeviceAttributes.builder().maxQp(7).build();
        DriverParams.Builder b = DriverParams.builder();
        Map<String, Object> values = fillDistinct(b, props);
        assertThat(values).hasSizeGreaterThanOrEqualTo(23);
        DriverParams p = b.build();
        for (Map.Entry<String, Object> e : values.entrySet()) {
            assertThat(DriverParams.class.getMethod(e.getKey()).invoke(p)).as(e.getKey()).isEqualTo(e.getValue());
        }
        assertThat(p.props()).isSameAs(props);
    }

    @Test
    void shouldKeepEveryFieldWhenRoundTrippedThroughToBuilder() throws Exception {
        DriverParams.Builder b = DriverParams.builder();
        fillDistinct(b, DeviceAttributes.builder().maxCq(3).build());
        DriverParams original = b.build();
        TestFields.assertEveryFieldDiffers(DriverParams.builder().build(), original);
        DriverParams copy = original.toBuilder().build();
        assertThat(copy).isNotSameAs(original);
        TestFields.assertSameFieldValues(original, copy);
        DriverParams changed = original.toBuilder().npkeys(1).build();
        assertThat(original.npkeys()).isNotEqualTo(1);
        assertThat(changed.npkeys()).isEqualTo(1);
        assertThat(changed.qpTableSize()).isEqualTo(original.qpTableSize());
    }

    @Test
    void shouldHaveDocumentedDefaultsWhenNothingIsSet() {
        DriverParams p = DriverParams.builder().build();
        assertThat(p.props()).isNotNull();
        assertThat(p.qpnInc()).isEqualTo(1);
        assertThat(p.nports()).isEqualTo(1);
        assertThat(p.npkeys()).isEqualTo(1);
        assertThat(p.psnMask()).isEqualTo(0xFFFFFF);
        assertThat(p.psnModifyMask()).isEqualTo(0xFFFFFF);
        assertThat(p.psnShift()).isEqualTo(8);
        assertThat(p.maxRdmaAtomic()).isEqualTo(16);
        assertThat(p.extraRdmaAtomic()).isZero();
        assertThat(p.reservedOperations()).isZero();
        assertThat(p.numCompVectors()).isEqualTo(1);
        assertThat(p.sgeCopyMode()).isEqualTo(DriverParams.SGE_COPY_MEMCPY);
    }

    @Test
    void shouldDeriveAckQueueSizesWhenAtomicLimitsAreSet() {
        DriverParams hfi1 = DriverParams.builder().maxRdmaAtomic(16).extraRdmaAtomic(8).build();
        assertThat(hfi1.maxAtomic()).isEqualTo(25);
        assertThat(hfi1.sizeAtomic()).isEqualTo(24);
        DriverParams qib = DriverParams.builder().maxRdmaAtomic(16).extraRdmaAtomic(0).build();
        assertThat(qib.maxAtomic()).isEqualTo(17);
        assertThat(qib.sizeAtomic()).isEqualTo(16);
        DriverParams none = DriverParams.builder().maxRdmaAtomic(0).build();
        assertThat(none.maxAtomic()).isEqualTo(1);
        assertThat(none.sizeAtomic()).isZero();
    }

    @Test
    void shouldHaveRdmavtConstantsWhenCompared() {
        assertThat(DriverParams.CORE_CAP_OPA_AH).isEqualTo(0x4000);
        assertThat(DriverParams.SGE_COPY_MEMCPY).isZero();
        assertThat(DriverParams.SGE_COPY_CACHELESS).isEqualTo(1);
        assertThat(DriverParams.SGE_COPY_ADAPTIVE).isEqualTo(2);
    }
}
