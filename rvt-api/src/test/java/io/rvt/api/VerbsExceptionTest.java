package io.rvt.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class VerbsExceptionTest {

    @Test
    void shouldCarryErrnoAndNameItInMessageWhenCreated() {
        VerbsException e = new VerbsException(Errno.ENOMEM, "send queue full");
        assertThat(e.errno()).isEqualTo(Errno.ENOMEM);
        assertThat(e.getMessage()).contains("send queue full").contains("ENOMEM");
        assertThat(e.getCause()).isNull();
        assertThat(e).isInstanceOf(RuntimeException.class);
    }

    @Test
    void shouldKeepCauseWhenCreatedWithOne() {
        Throwable cause = new IllegalStateException("inner");
        VerbsException e = new VerbsException(Errno.EINVAL, "bad", cause);
        assertThat(e.getCause()).isSameAs(cause);
        assertThat(e.errno()).isEqualTo(Errno.EINVAL);
        assertThat(e.getMessage()).contains("bad").contains("EINVAL");
    }

    @Test
    void shouldPrefixIndexWhenWorkRequestIsSingledOut() {
        WorkRequestException e = new WorkRequestException(Errno.EINVAL, 3, "numSge 5 exceeds maxSge 4");
        assertThat(e.badIndex()).isEqualTo(3);
        assertThat(e.errno()).isEqualTo(Errno.EINVAL);
        assertThat(e.getMessage()).startsWith("work request 3: numSge 5 exceeds maxSge 4").contains("EINVAL");
        assertThat(e).isInstanceOf(VerbsException.class);
    }

    @Test
    void shouldHaveNoIndexPrefixWhenNoWorkRequestIsSingledOut() {
        WorkRequestException e = new WorkRequestException(Errno.EINVAL, WorkRequestException.NO_INDEX,
                "QP state RESET does not allow posting");
        assertThat(WorkRequestException.NO_INDEX).isEqualTo(-1);
        assertThat(e.badIndex()).isEqualTo(WorkRequestException.NO_INDEX);
        assertThat(e.getMessage()).startsWith("QP state RESET").doesNotContain("work request");
        assertThat(e.getMessage()).contains("EINVAL");
    }

    @Test
    void shouldPrefixZeroIndexWhenFirstWorkRequestFails() {
        WorkRequestException e = new WorkRequestException(Errno.ENOMEM, 0, "queue full");
        assertThat(e.getMessage()).startsWith("work request 0: queue full").contains("ENOMEM");
        assertThat(e.errno()).isEqualTo(Errno.ENOMEM);
    }
}
