package io.rvt.it.interop.tools;

import io.rvt.api.Device;
import io.rvt.api.spi.DriverRegistry;
import io.rvt.driver.jni.JniDriver;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Two driver-jni HCAs of this JVM on one address (ephemeral UDP ports, each in the other's peer table, so that
 * tests running at once on this host never compete for UDP 4791), and a way to run a server tool on one and its
 * client on the other: the client starts once the server said it listens ({@link ToolContext#LISTENING}).
 */
final class LoopbackPair implements AutoCloseable {
    private final DriverRegistry registry = DriverRegistry.create();
    private final JniDriver a;
    private final JniDriver b;
    private final Device server;
    private final Device client;
    private final ExecutorService threads = Executors.newFixedThreadPool(2);

    /**
     * @param address 127.0.0.1 or ::1
     */
    LoopbackPair(String address) {
        a = JniDriver.builder().name("lo-srv").address(address).udpPort(0).build();
        b = JniDriver.builder().name("lo-cli").address(address).udpPort(0).build();
        a.addPeer(b.gid(1), b.localPort(1));
        b.addPeer(a.gid(1), a.localPort(1));
        server = registry.register(a);
        client = registry.register(b);
    }

    /** @return the server's HCA */
    Device server() {
        return server;
    }

    /** @return the client's HCA */
    Device client() {
        return client;
    }

    /**
     * Runs both sides to their ends.
     *
     * @param serverTool the server
     * @param serverArgs its command line
     * @param clientTool the client
     * @param clientArgs its command line
     * @param timeout how long both may take
     * @return the server's and the client's results
     * @throws Exception if a side throws or does not end in time
     */
    ToolResult[] run(Tool serverTool, String[] serverArgs, Tool clientTool, String[] clientArgs, Duration timeout)
            throws Exception {
        CountDownLatch listening = new CountDownLatch(1);
        PrintStream serverOut = new PrintStream(new LineWatcher("server", listening), true, StandardCharsets.UTF_8);
        PrintStream clientOut = new PrintStream(new LineWatcher("client", null), true, StandardCharsets.UTF_8);
        CompletableFuture<ToolResult> s = CompletableFuture.supplyAsync(
                () -> ToolRunner.run(serverTool, server, a, serverOut, serverArgs), threads);
        if (!listening.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("the server did not listen within " + timeout + (s.isDone() ? ": " + s.join()
                    : ""));
        }
        CompletableFuture<ToolResult> c = CompletableFuture.supplyAsync(
                () -> ToolRunner.run(clientTool, client, b, clientOut, clientArgs), threads);
        ToolResult cr = c.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        ToolResult sr = s.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        System.out.println(sr.format());
        System.out.println(cr.format());
        return new ToolResult[] {sr, cr};
    }

    @Override
    public void close() {
        threads.shutdownNow();
        registry.close();
        a.close();
        b.close();
    }

    /** Echoes a side's lines to standard output, prefixed, and counts down once the listening line came. */
    private static final class LineWatcher extends OutputStream {
        private final String prefix;
        private final CountDownLatch listening;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();

        LineWatcher(String prefix, CountDownLatch listening) {
            this.prefix = prefix;
            this.listening = listening;
        }

        @Override
        public synchronized void write(int c) {
            if (c != '\n') {
                line.write(c);
                return;
            }
            String l = line.toString(StandardCharsets.UTF_8);
            line.reset();
            System.out.println(prefix + ": " + l);
            if (listening != null && l.startsWith(ToolContext.LISTENING)) {
                listening.countDown();
            }
        }
    }
}
