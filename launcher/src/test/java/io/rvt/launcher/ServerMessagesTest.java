package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.Errno;
import io.rvt.api.Gid;
import io.rvt.cm.CmException;
import io.rvt.cm.ConnectionManager;
import io.rvt.cm.RejectReason;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The lines a server and a client print about a connection that did not come about, word for word. */
class ServerMessagesTest {
    @Test
    void shouldSayWhatItGaveUpWaitingForAndForHowLong() {
        try (Connector c = new Connector(new EmptyHost())) {
            assertThatThrownBy(() -> c.await(new CompletableFuture<>(), "the connection to 127.0.0.1 port 18515",
                    Duration.ofMillis(200))).isInstanceOf(Connector.WaitTimeout.class)
                    .hasMessage("gave up waiting for the connection to 127.0.0.1 port 18515 after 200 ms");
        }
        assertThat(Connector.seconds(Duration.ofSeconds(60))).isEqualTo("60 s");
    }

    @Test
    void shouldGiveTheServersReasonOrSayThatItGaveNone() throws Exception {
        InetAddress server = InetAddress.getByName("127.0.0.8");
        byte[] padded = new byte[ConnectionManager.MAX_REJ_PRIVATE_DATA]; // as a REJ carries it: zeros after the text
        byte[] text = "the client asks for -s 8".getBytes(StandardCharsets.UTF_8);
        System.arraycopy(text, 0, padded, 0, text.length);
        assertThat(RemotePingPong.refusal(rejected(padded), server, 18515))
                .isEqualTo("the server at 127.0.0.8 port 18515 refused: the client asks for -s 8");
        for (byte[] none : List.of(new byte[ConnectionManager.MAX_REJ_PRIVATE_DATA], new byte[] {1, 2, 3, 0},
                new byte[0])) {
            assertThat(RemotePingPong.refusal(rejected(none), server, 18515)).as(Arrays.toString(none))
                    .isEqualTo("the server at 127.0.0.8 port 18515 refused the connection without a reason (not an "
                            + "rvt server?)");
        }
    }

    private static CmException rejected(byte[] privateData) {
        return new CmException(Errno.ECONNREFUSED, "the connection request was rejected", Gid.ZERO, 18515,
                ConnectionManager.serviceId(18515), RejectReason.CONSUMER_DEFINED, privateData, 0);
    }

    @Test
    void shouldCutARefusalToWhatARejectCarriesAndNameItsSender() {
        String why = "é".repeat(100); // 200 bytes in UTF-8
        byte[] b = ClientWait.privateData(why);
        assertThat(b.length).isLessThanOrEqualTo(ConnectionManager.MAX_REJ_PRIVATE_DATA);
        assertThat(new String(b, StandardCharsets.UTF_8)).isEqualTo("é".repeat(74));
        assertThat(ClientWait.address(Gid.of(new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xFF, (byte) 0xFF,
                127, 0, 0, 9}))).isEqualTo("127.0.0.9");
    }

    @Test
    void shouldTakeTheInnermostCausesMessageOfAComponentsFailure() {
        String failure = "java.lang.reflect.InvocationTargetException\n\tat x.y(Z.java:1)\nCaused by: "
                + "io.rvt.driver.jni.UdpException: bind 127.0.0.1:4791 failed: EADDRINUSE (98, address already in use)"
                + "\n\tat io.rvt.driver.jni.NativeDatagrams.<init>(NativeDatagrams.java:53)\n\t... 21 more\n";
        assertThat(ScrFailures.rootMessage(failure))
                .isEqualTo("bind 127.0.0.1:4791 failed: EADDRINUSE (98, address already in use)");
        assertThat(ScrFailures.rootMessage("java.lang.IllegalArgumentException: udp.port: -1 is no port"))
                .isEqualTo("udp.port: -1 is no port");
    }
}
