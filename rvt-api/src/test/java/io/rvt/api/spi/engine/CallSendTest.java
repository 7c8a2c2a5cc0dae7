package io.rvt.api.spi.engine;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link CallSend}, setup_wqe's {@code call_send} decision. */
class CallSendTest {

    @Test
    void shouldStartFalseAndHoldValueWhenCallSendIsSet() {
        CallSend c = new CallSend();
        assertThat(c.get()).isFalse();
        c.set(true);
        assertThat(c.get()).isTrue();
        c.set(false);
        assertThat(c.get()).isFalse();
    }
}
