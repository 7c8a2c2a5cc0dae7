package io.rvt.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;

class QpCapTest {

    @Test
    void shouldRejectNegativeSizeWhenSet() {
        QpCap c = new QpCap();
        Map<String, IntConsumer> setters = new LinkedHashMap<>();
        setters.put("maxSendWr", c::maxSendWr);
        setters.put("maxRecvWr", c::maxRecvWr);
        setters.put("maxSendSge", c::maxSendSge);
        setters.put("maxRecvSge", c::maxRecvSge);
        setters.put("maxInlineData", c::maxInlineData);
        setters.forEach((field, s) -> {
            s.accept(0);
            s.accept(Integer.MAX_VALUE);
            assertThatThrownBy(() -> s.accept(-1)).as(field).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(field).hasMessageContaining("-1");
        });
    }

    @Test
    void shouldCopyEveryFieldWhenCopyFromIsCalled() {
        QpCap src = new QpCap().maxSendWr(1).maxRecvWr(2).maxSendSge(3).maxRecvSge(4).maxInlineData(5);
        TestFields.assertEveryFieldDiffers(new QpCap(), src);
        QpCap dst = new QpCap().maxSendWr(100);
        assertThat(dst.copyFrom(src)).isSameAs(dst);
        TestFields.assertSameFieldValues(src, dst);
        assertThat(dst.maxSendWr()).isEqualTo(1);
        assertThat(dst.maxRecvWr()).isEqualTo(2);
        assertThat(dst.maxSendSge()).isEqualTo(3);
        assertThat(dst.maxRecvSge()).isEqualTo(4);
        assertThat(dst.maxInlineData()).isEqualTo(5);
    }
}
