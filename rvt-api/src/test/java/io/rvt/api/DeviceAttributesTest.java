package io.rvt.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DeviceAttributesTest {

    /** Builder setters that take any value (identifiers, versions, flags); every other int setter is a limit. */
    private static final Set<String> UNCHECKED = Set.of("vendorId", "vendorPartId", "hwVer");

    private static List<Method> builderSetters() {
        List<Method> out = new ArrayList<>();
        for (Method m : DeviceAttributes.Builder.class.getDeclaredMethods()) {
            if (Modifier.isPublic(m.getModifiers()) && m.getParameterCount() == 1
                    && m.getReturnType() == DeviceAttributes.Builder.class) {
                out.add(m);
            }
        }
        return out;
    }

    /** Sets every builder field to a distinct value; returns name → value. */
    private static Map<String, Object> fillDistinct(DeviceAttributes.Builder b) throws Exception {
        Map<String, Object> values = new LinkedHashMap<>();
        int i = 1;
        for (Method m : builderSetters()) {
            Object v = m.getParameterTypes()[0] == long.class ? (Object) (0x1_0000_0000L * i + i) : (Object) (i * 3);
            m.invoke(b, v);
            values.put(m.getName(), v);
            i++;
        }
        return values;
    }

    @Test
    void shouldReturnEachBuilderValueWhenAccessorIsCalled() throws Exception {
        DeviceAttributes.Builder b = DeviceAttributes.builder();
        Map<String, Object> values = fillDistinct(b);
        assertThat(values).hasSizeGreaterThanOrEqualTo(31);
        DeviceAttributes attrs = b.build();
        for (Map.Entry<String, Object> e : values.entrySet()) {
            assertThat(DeviceAttributes.class.getMethod(e.getKey()).invoke(attrs)).as(e.getKey())
                    .isEqualTo(e.getValue());
        }
    }

    @Test
    void shouldKeepEveryFieldWhenRoundTrippedThroughToBuilder() throws Exception {
        DeviceAttributes.Builder b = DeviceAttributes.builder();
        fillDistinct(b);
        DeviceAttributes original = b.build();
        DeviceAttributes copy = original.toBuilder().build();
        assertThat(copy).isNotSameAs(original);
        TestFields.assertEveryFieldDiffers(DeviceAttributes.builder().build(), original);
        TestFields.assertSameFieldValues(original, copy);
    }

    @Test
    void shouldLeaveOriginalUnchangedWhenToBuilderIsModified() {
        DeviceAttributes original = DeviceAttributes.builder().maxQp(10).maxCqe(20).build();
        DeviceAttributes changed = original.toBuilder().maxQp(11).build();
        assertThat(original.maxQp()).isEqualTo(10);
        assertThat(changed.maxQp()).isEqualTo(11);
        assertThat(changed.maxCqe()).isEqualTo(20);
    }

    @Test
    void shouldRejectNegativeLimitWhenBuilderIsGivenOne() throws Exception {
        int checked = 0;
        for (Method m : builderSetters()) {
            if (m.getParameterTypes()[0] != int.class || UNCHECKED.contains(m.getName())) {
                continue;
            }
            checked++;
            DeviceAttributes.Builder b = DeviceAttributes.builder();
            m.invoke(b, 0);
            m.invoke(b, Integer.MAX_VALUE);
            assertThatThrownBy(() -> {
                try {
                    m.invoke(b, -1);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            }).as(m.getName()).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(m.getName()).hasMessageContaining("-1");
        }
        assertThat(checked).isGreaterThanOrEqualTo(22);
    }

    @Test
    void shouldAcceptAnyValueWhenFieldIsAnIdentifier() {
        DeviceAttributes a = DeviceAttributes.builder().vendorId(-1).vendorPartId(-2).hwVer(-3).fwVer(-4L)
                .nodeGuid(-5L).deviceCapFlags(-6L).build();
        assertThat(a.vendorId()).isEqualTo(-1);
        assertThat(a.vendorPartId()).isEqualTo(-2);
        assertThat(a.hwVer()).isEqualTo(-3);
        assertThat(a.fwVer()).isEqualTo(-4L);
        assertThat(a.nodeGuid()).isEqualTo(-5L);
        assertThat(a.deviceCapFlags()).isEqualTo(-6L);
    }

    @Test
    void shouldFormatGuidAsIbverbsDoes() {
        assertThat(DeviceAttributes.formatGuid(0x0052565400100010L)).isEqualTo("0052:5654:0010:0010");
        assertThat(DeviceAttributes.formatGuid(0)).isEqualTo("0000:0000:0000:0000");
        assertThat(DeviceAttributes.formatGuid(-1L)).isEqualTo("ffff:ffff:ffff:ffff");
        assertThat(DeviceAttributes.formatGuid(0xABCDEF0123456789L)).isEqualTo("abcd:ef01:2345:6789");
        assertThat(DeviceAttributes.builder().nodeGuid(0x0052565400100010L).build().toString())
                .contains("nodeGuid=0052:5654:0010:0010");
    }
}
