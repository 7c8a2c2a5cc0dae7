package io.rvt.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.mock;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;

class SrqAttrsTest {

    private static void assertNegativeRejected(Map<String, IntConsumer> setters) {
        setters.forEach((field, s) -> {
            s.accept(0);
            assertThatThrownBy(() -> s.accept(-1)).as(field).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(field).hasMessageContaining("-1");
        });
    }

    @Test
    void shouldRejectNegativeSizesWhenSrqInitAttrIsSet() {
        SrqInitAttr a = new SrqInitAttr();
        Map<String, IntConsumer> setters = new LinkedHashMap<>();
        setters.put("maxWr", a::maxWr);
        setters.put("maxSge", a::maxSge);
        setters.put("srqLimit", a::srqLimit);
        assertNegativeRejected(setters);
    }

    @Test
    void shouldDefaultToBasicTypeAndKeepValuesWhenSrqInitAttrIsSet() {
        SrqInitAttr a = new SrqInitAttr();
        assertThat(a.srqType()).isEqualTo(SrqInitAttr.SRQT_BASIC).isZero();
        AsyncEventHandler h = mock(AsyncEventHandler.class);
        a.maxWr(10).maxSge(2).srqLimit(3).srqType(1).eventHandler(h);
        assertThat(a.maxWr()).isEqualTo(10);
        assertThat(a.maxSge()).isEqualTo(2);
        assertThat(a.srqLimit()).isEqualTo(3);
        assertThat(a.srqType()).isEqualTo(1);
        assertThat(a.eventHandler()).isSameAs(h);
    }

    @Test
    void shouldRejectNegativeSizesWhenSrqAttrIsSet() {
        SrqAttr a = new SrqAttr();
        Map<String, IntConsumer> setters = new LinkedHashMap<>();
        setters.put("maxWr", a::maxWr);
        setters.put("maxSge", a::maxSge);
        setters.put("srqLimit", a::srqLimit);
        assertNegativeRejected(setters);
        a.maxWr(5).maxSge(6).srqLimit(7);
        assertThat(a.maxWr()).isEqualTo(5);
        assertThat(a.maxSge()).isEqualTo(6);
        assertThat(a.srqLimit()).isEqualTo(7);
    }
}
