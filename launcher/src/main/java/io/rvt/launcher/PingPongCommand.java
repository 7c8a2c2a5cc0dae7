package io.rvt.launcher;

import io.rvt.api.Device;
import io.rvt.api.QueuePair;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * {@code rvt pingpong}: ibv_rc_pingpong (and its uc/ud siblings) between the host's first two devices, every message
 * checked ({@link PingPong}); prints ibv_rc_pingpong's addresses and its two result lines. With {@code --server} or
 * a {@code HOST} it runs one end in this process and the other runs in another: over the examples' TCP exchange
 * ({@link ExamplesPingPong}, against ibv_*_pingpong or rvt), or with {@code -R} through rvt-cm ({@link RemotePingPong}).
 */
final class PingPongCommand {
    /** The default message size, ibv_rc_pingpong's. */
    static final int DEFAULT_SIZE = 4096;
    /** The default number of iterations, ibv_rc_pingpong's. */
    static final int DEFAULT_ITERS = 1000;

    private final PrintStream out;
    private final Transport transport;
    private final int size;
    private final int iters;
    private int corruptIteration = -1;
    private String ibDev;
    private LinkOptions link = LinkOptions.DEFAULT;
    private int cmPort = Options.DEFAULT_CM_PORT;
    private boolean server;
    private String peer;
    private java.util.Set<String> given = java.util.Set.of();
    private ExamplesPingPong.Params examples;
    private java.net.InetAddress bind;

    /**
     * @param out where the results go
     * @param transport RC, UC or UD
     * @param size bytes per message
     * @param iters round trips
     */
    PingPongCommand(PrintStream out, Transport transport, int size, int iters) {
        this.out = out;
        this.transport = transport;
        this.size = size;
        this.iters = iters;
    }

    /**
     * @param ibDev the requester's device ({@code -d}), or null for the host's first
     * @param link the port, path MTU and GID index ({@code -i}, {@code -m}, {@code -x})
     * @return this command
     */
    PingPongCommand on(String ibDev, LinkOptions link) {
        this.ibDev = ibDev;
        this.link = link;
        return this;
    }

    /**
     * @param server listen for a client process ({@code --server})
     * @param peer the server process to connect to ({@code HOST}), or null
     * @param given the options on the command line (a server refuses a client whose test contradicts them)
     * @return this command
     */
    PingPongCommand remote(boolean server, String peer, java.util.Set<String> given) {
        this.server = server;
        this.peer = peer;
        this.given = given;
        return this;
    }

    /**
     * Between two processes, speak the examples' protocol (the default) instead of rvt-cm's ({@code -R}).
     *
     * @param params the examples' test, or null to connect through rvt-cm
     * @param bind a server's listening address (its HCA's)
     * @return this command
     */
    PingPongCommand examples(ExamplesPingPong.Params params, java.net.InetAddress bind) {
        this.examples = params;
        this.bind = bind;
        return this;
    }

    /**
     * @param port the CM port the responder listens on ({@code -p})
     * @return this command
     */
    PingPongCommand cmPort(int port) {
        this.cmPort = port;
        return this;
    }

    /**
     * Test hook: see {@link PingPong#corruptReceivedByteAt(int)}.
     *
     * @param iteration the iteration whose received message gets one byte flipped
     * @return this command
     */
    PingPongCommand corruptReceivedByteAt(int iteration) {
        this.corruptIteration = iteration;
        return this;
    }

    /**
     * Runs the ping-pong.
     *
     * @param host the devices' host (at least two devices)
     * @throws UsageException if the size is above what the transport carries on these devices
     * @throws DataCorruptionException if a message arrives different from what was sent
     */
    void run(Host host) {
        if ((server || peer != null) && examples != null) {
            new ExamplesPingPong(out, examples, link).run(host, server ? null : JniSetup.resolve(peer), bind);
            return;
        }
        if (server || peer != null) {
            int warm = WarmUp.COUNTED_MAX; // the client ends it when warm (WarmUp.Settling)
            RemotePingPong remote = new RemotePingPong(out, new RemotePingPong.Params(transport, size, iters, warm,
                    link.qpTimeout()), link, cmPort);
            if (server) {
                remote.server(host, given);
            } else {
                remote.client(host, JniSetup.resolve(peer));
            }
            return;
        }
        List<Device> devs = Main.requirePair(host, ibDev, "pingpong");
        try (PingPong pp = new PingPong(host, devs.get(0), devs.get(1), transport, size, link, cmPort)) {
            pp.corruptReceivedByteAt(corruptIteration);
            out.printf("  local address:  %s%n", address(pp.a.endpoint, pp.qa, pp.psnA));
            out.printf("  remote address: %s%n", address(pp.b.endpoint, pp.qb, pp.psnB));
            WarmUp.run(size, pp::exchange); // checked like the rest, not timed
            long start = System.nanoTime();
            pp.exchange(iters);
            double secs = (System.nanoTime() - start) / 1e9;
            long bytes = 2L * iters * size;
            out.printf(Locale.ROOT, "%d bytes in %.2f seconds = %.2f Mbit/sec%n", bytes, secs, bytes * 8 / secs / 1e6);
            out.printf(Locale.ROOT, "%d iters in %.2f seconds = %.2f usec/iter%n", iters, secs, secs * 1e6 / iters);
            out.printf("(%s; every message checked; measured on %s)%n", transport.option().toUpperCase(Locale.ROOT),
                    host.measuredOn());
        }
    }

    /**
     * @return one side's address as ibv_rc_pingpong prints it, with the GID when the address is global
     *         ({@code -g}): {@code LID 0x0000, QPN 0x000002, PSN 0x000000, GID ::ffff:127.0.0.1 (roce0)}
     */
    private static String address(Endpoint e, QueuePair qp, int psn) {
        return String.format(Locale.ROOT, "LID 0x%04x, QPN 0x%06x, PSN 0x%06x%s (%s)", e.lid(), qp.qpNum(), psn,
                e.global() ? ", GID " + e.gid : "", e.device.name());
    }
}
