package io.rvt.launcher.pingpong;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * The examples' TCP exchange of {@link PingpongDest}s (port 18515 unless {@code -p}). The client connects and writes
 * its destination, reads the server's, writes {@code "done"}. The server reads the client's destination, brings its QP
 * to RTR and RTS ({@code pp_connect_ctx}: the client may send as soon as it has the answer), writes its own and reads
 * {@code "done"}. Every read is bounded by a deadline. The connection stays open after the exchange ({@link Session}).
 */
public final class PingpongExchange {
    /** The examples' TCP port. */
    public static final int PORT = 18515;

    private PingpongExchange() {
    }

    /**
     * @param server the server's address
     * @param port the TCP port
     * @param mine this side's destination
     * @param patience the most the connect and each read may take
     * @return the connection, holding the server's destination
     * @throws IllegalStateException if the exchange fails (naming the server and what went wrong)
     */
    public static Session client(InetAddress server, int port, PingpongDest mine, Duration patience) {
        String where = server.getHostAddress() + " TCP port " + port;
        Socket s = new Socket();
        try {
            s.connect(new InetSocketAddress(server, port), millis(patience));
            s.setSoTimeout(millis(patience));
            OutputStream out = s.getOutputStream();
            out.write(mine.toWire());
            out.flush();
            PingpongDest remote = parse(readExactly(s.getInputStream(), PingpongDest.WIRE_SIZE,
                    "the server's address"), where);
            out.write(PingpongDest.DONE);
            out.flush();
            return new Session(s, remote);
        } catch (IOException e) {
            closeQuietly(s);
            throw new IllegalStateException("couldn't exchange addresses with the server at " + where + ": " + e, e);
        } catch (RuntimeException e) {
            closeQuietly(s);
            throw e;
        }
    }

    /**
     * @param bind the local address to listen on, or null for the wildcard of both families (as getaddrinfo's
     *        passive list on a dual-stack host)
     * @param port the TCP port
     * @param mine this side's destination
     * @param patience how long to wait for a client, and then for each read
     * @param listening told once the socket listens (e.g. to say so)
     * @param connect what to do with the client's destination before the answer (bring the QP to RTS)
     * @return the connection, holding the client's destination
     * @throws IllegalStateException if the exchange fails
     */
    public static Session server(InetAddress bind, int port, PingpongDest mine, Duration patience,
            Runnable listening, Consumer<PingpongDest> connect) {
        InetSocketAddress local = bind == null ? new InetSocketAddress(port) : new InetSocketAddress(bind, port);
        String where = (bind == null ? "the wildcard address" : bind.getHostAddress()) + " TCP port " + port;
        Socket s = null;
        try (ServerSocket listen = new ServerSocket()) {
            listen.setReuseAddress(true);
            listen.bind(local, 1);
            listen.setSoTimeout(millis(patience));
            listening.run();
            s = listen.accept();
            s.setSoTimeout(millis(patience));
            String client = s.getInetAddress().getHostAddress();
            PingpongDest remote = parse(readExactly(s.getInputStream(), PingpongDest.WIRE_SIZE,
                    "the client's address"), client);
            connect.accept(remote);
            OutputStream out = s.getOutputStream();
            out.write(mine.toWire());
            out.flush();
            byte[] done = readExactly(s.getInputStream(), PingpongDest.DONE.length, "the client's \"done\"");
            if (!Arrays.equals(done, PingpongDest.DONE)) {
                throw new IllegalStateException("the client at " + client + " sent " + Arrays.toString(done)
                        + " instead of \"done\"");
            }
            return new Session(s, remote);
        } catch (SocketTimeoutException e) {
            closeQuietly(s);
            throw new IllegalStateException("no client on " + where + " within " + patience.toSeconds() + " s", e);
        } catch (IOException e) {
            closeQuietly(s);
            throw new IllegalStateException("couldn't exchange addresses on " + where + ": " + e, e);
        } catch (RuntimeException e) {
            closeQuietly(s);
            throw e;
        }
    }

    /**
     * The exchange's TCP connection after the exchange, and the peer's destination. The examples close it at once;
     * rvt keeps it until its loop has ended and then waits for the peer's end too ({@link #finish}), so that between
     * two rvts neither QP goes while the other may still need an ACK from it (a last message whose first ACK was
     * lost is retransmitted; an example, gone, leaves that send to fail with RETRY_EXC_ERR).
     *
     * @param socket the connection
     * @param remote the peer's destination
     */
    public record Session(Socket socket, PingpongDest remote) implements AutoCloseable {
        /**
         * Says this side is done (closes its half of the connection) and waits until the peer closes its own (an
         * example did so right after the exchange; an rvt does when its loop is done), at most {@code patience};
         * bytes it sends are ignored.
         *
         * @param patience the most to wait
         */
        public void finish(Duration patience) {
            try {
                socket.shutdownOutput();
            } catch (IOException e) {
                // an example peer has gone already: nothing to tell it
            }
            try {
                socket.setSoTimeout(millis(patience));
                InputStream in = socket.getInputStream();
                byte[] b = new byte[64];
                while (in.read(b) >= 0) {
                    // nothing is expected: read to the end
                }
            } catch (IOException e) {
                // timed out or reset: the peer is gone or will not say more; either way this side is done
            }
        }

        @Override
        public void close() {
            closeQuietly(socket);
        }
    }

    private static void closeQuietly(Socket s) {
        if (s != null) {
            try {
                s.close();
            } catch (IOException e) {
                // closing a socket that failed: nothing to tell
            }
        }
    }

    private static PingpongDest parse(byte[] wire, String peer) {
        try {
            return PingpongDest.parse(wire);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(e.getMessage() + " (from " + peer + ")", e);
        }
    }

    private static int millis(Duration d) {
        return (int) Math.min(Integer.MAX_VALUE, Math.max(1, d.toMillis()));
    }

    private static byte[] readExactly(InputStream in, int n, String what) throws IOException {
        byte[] b = new byte[n];
        int got = 0;
        while (got < n) {
            int r = in.read(b, got, n - got);
            if (r < 0) {
                throw new IOException(what + ": the peer closed the connection after " + got + " of " + n
                        + " bytes");
            }
            got += r;
        }
        return b;
    }
}
