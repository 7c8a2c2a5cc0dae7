package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** perftest's TCP channel as the passive server watches it while the client's rows run. */
class PerftestTcpChannelTest {

    @Test
    @Timeout(60)
    void shouldSeeAClientThatClosedTheConnectionAsWaiting() throws Exception {
        try (ServerSocket listen = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<PerftestComm> accepted = CompletableFuture.supplyAsync(
                    () -> PerftestComm.Tcp.accept(listen, Duration.ofSeconds(30)));
            PerftestComm client = PerftestComm.Tcp.connect(InetAddress.getLoopbackAddress(), listen.getLocalPort(),
                    Duration.ofSeconds(30));
            try (PerftestComm server = accepted.get(30, TimeUnit.SECONDS)) {
                assertThat(server.peerWaiting()).as("nothing sent, the client still there").isFalse();
                client.close();
                // available() says 0 at the end of the stream: the channel must look for it itself
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (!server.peerWaiting()) {
                    assertThat(System.nanoTime() - deadline).as("the closed client is seen").isNegative();
                    Thread.onSpinWait();
                }
                assertThatThrownBy(() -> server.exchange(new byte[4])).hasMessageContaining(
                        "the peer closed the connection");
            }
        }
    }

    @Test
    @Timeout(60)
    void shouldKeepTheByteItPeekedForTheNextExchange() throws Exception {
        try (ServerSocket listen = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<PerftestComm> accepted = CompletableFuture.supplyAsync(
                    () -> PerftestComm.Tcp.accept(listen, Duration.ofSeconds(30)));
            try (PerftestComm client = PerftestComm.Tcp.connect(InetAddress.getLoopbackAddress(),
                    listen.getLocalPort(), Duration.ofSeconds(30));
                    PerftestComm server = accepted.get(30, TimeUnit.SECONDS)) {
                CompletableFuture<byte[]> reply = CompletableFuture.supplyAsync(() -> client.exchange(
                        new byte[] {1, 2, 3}));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (!server.peerWaiting()) {
                    assertThat(System.nanoTime() - deadline).as("the client's bytes are seen").isNegative();
                    Thread.onSpinWait();
                }
                assertThat(server.exchange(new byte[] {7, 8, 9})).containsExactly(1, 2, 3);
                assertThat(reply.get(30, TimeUnit.SECONDS)).containsExactly(7, 8, 9);
            }
        }
    }
}
