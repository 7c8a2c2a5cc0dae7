package io.rvt.launcher;

import io.rvt.api.Gid;
import io.rvt.cm.CmException;
import io.rvt.cm.ConnectRequest;
import io.rvt.cm.ConnectionManager;
import io.rvt.cm.Listener;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Function;

/**
 * A server's wait for its client's requests: a request the server will not serve (another program's, a client whose
 * test contradicts the server's command line, a second client) is rejected with the reason as the REJ's private data,
 * one line on the server's output says what was refused and from where, and the wait goes on, until the patience is
 * spent. One such request does not end the server.
 */
final class ClientWait {
    private final Connector connector;
    private final Listener listener;
    private final PrintStream out;
    private final String command;

    /**
     * @param connector the server's connections
     * @param listener its listener
     * @param out where the refusal lines go
     * @param command the command, for the lines ({@code pingpong}, {@code perf})
     */
    ClientWait(Connector connector, Listener listener, PrintStream out, String command) {
        this.connector = connector;
        this.listener = listener;
        this.out = out;
        this.command = command;
    }

    /**
     * Waits for a request the server serves, refusing the others.
     *
     * @param what what is awaited, for the error when none comes ({@code "a client"})
     * @param patience how long to wait in all, refusals included
     * @param refusal why the server refuses a request, or null if it serves it
     * @return the first request the server serves
     * @throws IllegalStateException if none comes within {@code patience}
     */
    ConnectRequest next(String what, Duration patience, Function<ConnectRequest, String> refusal) {
        long deadline = System.nanoTime() + patience.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            ConnectRequest req;
            try {
                if (left <= 0) {
                    throw new Connector.WaitTimeout("");
                }
                req = connector.request(listener, Duration.ofNanos(left));
            } catch (Connector.WaitTimeout e) {
                throw new IllegalStateException("gave up waiting for " + what + " on port " + listener.port()
                        + " after " + patience.toSeconds() + " s");
            }
            String why = refusal.apply(req);
            if (why == null) {
                return req;
            }
            refuse(req, why);
        }
    }

    /** Rejects {@code req} with {@code why} as the REJ's private data and says so on one line. */
    private void refuse(ConnectRequest req, String why) {
        try {
            req.reject(privateData(why));
        } catch (CmException e) {
            // the request's hold ran out meanwhile (its peer has gone): nothing to answer
        }
        out.printf("rvt %s: refused a request from %s: %s; waiting for the next client%n", command, origin(req), why);
    }

    /** @return {@code why} in UTF-8, cut to what a REJ carries (148 bytes) */
    static byte[] privateData(String why) {
        String s = why;
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        while (b.length > ConnectionManager.MAX_REJ_PRIVATE_DATA) {
            s = s.substring(0, s.length() - 1);
            b = s.getBytes(StandardCharsets.UTF_8);
        }
        return b;
    }

    /**
     * @param req a request
     * @return where it came from: the sender's address (its GID, from the packet's GRH), and the address its IP CM
     *         header claims when that is another, with its source port
     */
    static String origin(ConnectRequest req) {
        String sender = address(req.remoteGid());
        if (req.remoteAddress() == null) {
            return sender;
        }
        String claimed = req.remoteAddress().getAddress().getHostAddress();
        return claimed.equals(sender) ? sender + " port " + req.remoteAddress().getPort()
                : sender + " (its header says " + claimed + " port " + req.remoteAddress().getPort() + ")";
    }

    /** @return the IP address a RoCEv2 GID is, else the GID */
    static String address(Gid gid) {
        try {
            return InetAddress.getByAddress(gid.toBytes()).getHostAddress();
        } catch (UnknownHostException e) {
            return gid.toString();
        }
    }
}
