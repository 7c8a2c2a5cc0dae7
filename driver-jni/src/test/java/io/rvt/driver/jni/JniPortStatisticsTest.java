package io.rvt.driver.jni;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * {@link JniDriver#statistics(int)}: one live object per port, what the deprecated per-figure getters return, and a
 * port that does not exist named in the error.
 */
class JniPortStatisticsTest {
    @Test
    @SuppressWarnings("deprecation") // the getters PortStatistics replaces must give its figures
    void shouldGiveOnePortsFiguresAsOneObject() {
        try (JniDriver d = JniDriver.builder().name("stats0").address("127.0.0.1").udpPort(0).wire(Wire.JDK)
                .build()) {
            PortStatistics s = d.statistics(1);
            assertThat(d.statistics(1)).as("the port's own, live").isSameAs(s);
            assertThat(s.icrcErrors()).isZero().isEqualTo(d.icrcErrors(1));
            assertThat(s.malformed()).isZero().isEqualTo(d.malformed(1));
            assertThat(s.sendErrors()).isZero().isEqualTo(d.sendErrors(1));
            assertThat(s.kernelDrops()).isZero().isEqualTo(d.kernelDrops(1));
            assertThat(s.zeroCopyPackets()).isZero().isEqualTo(d.zeroCopyPackets(1));
            assertThat(s.receiveBufferBytes()).isEqualTo(d.receiveBufferBytes(1));
            assertThat(s.sendBufferBytes()).isEqualTo(d.sendBufferBytes(1));
            assertThat(s.rcWindowPackets()).isEqualTo(d.rcWindowPackets(1));
            assertThat(s.socketCalls()).isEqualTo(d.socketCalls(1))
                    .isEqualTo(new SocketCalls(0, 0, 0, 0, 0, 0, 0, 0, 0, 0));

            s.countMalformed();
            s.countSends(2, 5, 0, 1);
            assertThat(d.malformed(1)).isEqualTo(1);
            assertThat(d.sendErrors(1)).isEqualTo(1);
            assertThat(d.socketCalls(1).sendCalls()).isEqualTo(2);
            assertThat(d.socketCalls(1).datagramsSent()).isEqualTo(5);

            assertThatThrownBy(() -> d.statistics(2)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("port 2 does not exist on stats0 (1..1)");
        }
    }
}
