package io.rvt.it.interop.tools;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** The byte checks every tool's verdict rests on. */
class MessagesTest {
    @Test
    void shouldNameTheFirstWrongByte() {
        ByteBuffer want = Pingpong.content(8192, true);
        ByteBuffer got = ByteBuffer.allocateDirect(8200);
        got.put(8, want, 0, 8192);
        assertThatCode(() -> Messages.check("message 3", got, 8, want, 0, 8192)).doesNotThrowAnyException();
        got.put(8 + 4096, (byte) 0x7b); // the second page's --chk mark lost
        assertThatThrownBy(() -> Messages.check("message 3", got, 8, want, 0, 8192)).isInstanceOf(ToolFailure.class)
                .hasMessage("message 3: byte 4096 of 8192 is 0x7b, expected 0x0");
    }

    @Test
    void shouldRefuseAWrongLengthOrByte() {
        assertThatThrownBy(() -> Messages.checkLength("the answer", 15, 16)).hasMessage("the answer: 15 bytes, "
                + "expected 16");
        ByteBuffer b = ByteBuffer.allocate(16);
        b.put(15, Messages.SCRIBBLE);
        assertThatThrownBy(() -> Messages.checkAll("the answer", b, 0, 16, (byte) 0))
                .hasMessage("the answer: byte 15 of 16 is 0xa5, expected 0x0");
    }
}
