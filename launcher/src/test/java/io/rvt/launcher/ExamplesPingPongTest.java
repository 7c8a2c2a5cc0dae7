package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.Device;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link ExamplesPingPong}'s server and client, on the two simulated HCAs of one host, over the examples' TCP exchange
 * on loopback: both print the examples' lines, each side's address is what the other was told, every message is
 * checked.
 */
class ExamplesPingPongTest {
    // ibv_ud_pingpong's local line has "PSN ...: GID", the others ", GID"
    private static final Pattern LOCAL = Pattern.compile("local address: +(LID 0x[0-9a-f]{4}, QPN 0x[0-9a-f]{6}, "
            + "PSN 0x[0-9a-f]{6})[,:] (GID \\S+)");
    private static final Pattern REMOTE = Pattern.compile("remote address: +(LID 0x[0-9a-f]{4}, QPN 0x[0-9a-f]{6}, "
            + "PSN 0x[0-9a-f]{6}), (GID \\S+)");

    @ParameterizedTest
    @EnumSource(Transport.class)
    void shouldPingPongOverTheExamplesExchange(Transport t) throws Exception {
        String[] out = pair(t, 1024, 50, false, false);
        for (String o : out) {
            assertThat(o).contains("102400 bytes in ", "50 iters in ", "(" + t + "; every message checked");
        }
        assertThat(out[1]).containsPattern(t == Transport.UD ? "PSN 0x[0-9a-f]{6}: GID" : "PSN 0x[0-9a-f]{6}, GID");
        assertThat(group(LOCAL, out[0])).isEqualTo(group(REMOTE, out[1]));
        assertThat(group(LOCAL, out[1])).isEqualTo(group(REMOTE, out[0]));
    }

    @Test
    void shouldCarryTheClientsPageMarksWithChkAndSleepOnEventsWithE() throws Exception {
        String[] out = pair(Transport.RC, 10000, 20, true, true);
        assertThat(out[0]).contains("400000 bytes in ", "20 iters in ");
        assertThat(out[1]).contains("400000 bytes in ", "20 iters in ");
    }

    @Test
    void shouldRefuseAMessageOfAnotherSize() {
        // the client's 512-byte messages land in the server's 1024-byte receives, which the examples would take
        assertThatThrownBy(() -> pair(Transport.RC, 1024, 512, 5))
                .hasMessageContaining("message 0: 512 bytes arrived, expected 1024");
    }

    private static String[] pair(Transport t, int size, int iters, boolean chk, boolean events) throws Exception {
        return pair(t, size, size, iters, chk, events);
    }

    private static String[] pair(Transport t, int serverSize, int clientSize, int iters) throws Exception {
        return pair(t, serverSize, clientSize, iters, false, false);
    }

    /** @return the server's and the client's output */
    private static String[] pair(Transport t, int serverSize, int clientSize, int iters, boolean chk, boolean events)
            throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        InetAddress lo = InetAddress.getLoopbackAddress();
        ByteArrayOutputStream sb = new ByteArrayOutputStream();
        ByteArrayOutputStream cb = new ByteArrayOutputStream();
        try (PlainHost host = PlainHost.start(Options.parse().fabric(), Threading.SHARED)) {
            Device a = host.devices().get(0);
            Device b = host.devices().get(1);
            ExamplesPingPong server = new ExamplesPingPong(new PrintStream(sb, true, StandardCharsets.UTF_8),
                    new ExamplesPingPong.Params(t, serverSize, iters, 16, 0, false, events, port), LinkOptions.DEFAULT);
            ExamplesPingPong client = new ExamplesPingPong(new PrintStream(cb, true, StandardCharsets.UTF_8),
                    new ExamplesPingPong.Params(t, clientSize, iters, 16, 0, chk, events, port), LinkOptions.DEFAULT);
            CompletableFuture<Void> s = CompletableFuture.runAsync(() -> server.run(host, a, null, lo));
            awaitListening(sb, s);
            CompletableFuture<Void> c = CompletableFuture.runAsync(() -> client.run(host, b, lo, lo));
            try {
                c.get(60, TimeUnit.SECONDS);
                s.get(60, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                // a client waiting in vain for the pong of a message the server refused: the server's error says why
                if (s.isCompletedExceptionally()) {
                    try {
                        s.join();
                    } catch (java.util.concurrent.CompletionException x) {
                        throw (Exception) x.getCause();
                    }
                }
                throw (Exception) e.getCause();
            } finally {
                // a failed side leaves the other waiting for its deadline: end it with the host
                c.cancel(true);
                s.cancel(true);
            }
        }
        return new String[] {sb.toString(StandardCharsets.UTF_8), cb.toString(StandardCharsets.UTF_8)};
    }

    private static void awaitListening(ByteArrayOutputStream sb, CompletableFuture<Void> s) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!sb.toString(StandardCharsets.UTF_8).contains("waiting for a client")) {
            if (s.isDone()) {
                s.get();
            }
            assertThat(System.nanoTime() - deadline).as("the server's listening line").isNegative();
            Thread.onSpinWait();
        }
    }

    private static String group(Pattern p, String text) {
        Matcher m = p.matcher(text);
        assertThat(m.find()).as("%s in %s", p, text).isTrue();
        return m.group(1) + " " + m.group(2);
    }
}
