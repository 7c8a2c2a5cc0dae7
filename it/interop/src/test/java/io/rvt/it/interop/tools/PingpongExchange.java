package io.rvt.it.interop.tools;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.Arrays;

/**
 * The examples' TCP exchange of {@link PingpongDest}s on port 18515 ({@code -p}). The client connects and writes
 * its destination, reads the server's, writes {@code "done"}. The server listens on the wildcard address of both
 * families (as getaddrinfo's passive AF_UNSPEC list binds), reads the client's destination, brings its QP to RTR and
 * RTS ({@code pp_connect_ctx}: the client may send as soon as it has the answer), writes its own and reads
 * {@code "done"}.
 */
final class PingpongExchange {
    /** The examples' TCP port. */
    static final int PORT = 18515;

    /** What the server does with the client's destination before it answers. */
    interface Connect {
        /**
         * @param remote the client's destination
         * @throws ToolFailure if the QP cannot be connected
         */
        void connect(PingpongDest remote) throws ToolFailure;
    }

    private PingpongExchange() {
    }

    /**
     * @param ctx the run (its deadline bounds every read)
     * @param server the server's address
     * @param port the TCP port
     * @param mine this side's destination
     * @return the server's
     * @throws ToolFailure if the exchange fails (naming the server and what was read)
     */
    static PingpongDest client(ToolContext ctx, String server, int port, PingpongDest mine) throws ToolFailure {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(server, port), timeoutMillis(ctx));
            s.setSoTimeout(timeoutMillis(ctx));
            OutputStream out = s.getOutputStream();
            out.write(mine.toWire());
            out.flush();
            PingpongDest remote = PingpongDest.parse(readExactly(s.getInputStream(), PingpongDest.WIRE_SIZE,
                    "the server's address"));
            out.write(PingpongDest.DONE);
            out.flush();
            return remote;
        } catch (IOException e) {
            throw new ToolFailure("couldn't exchange addresses with " + server + ":" + port + ": " + e, e);
        }
    }

    /**
     * @param ctx the run
     * @param port the TCP port
     * @param mine this side's destination
     * @param connect what to do with the client's destination before the answer
     * @return the client's destination
     * @throws ToolFailure if the exchange fails
     */
    static PingpongDest server(ToolContext ctx, int port, PingpongDest mine, Connect connect) throws ToolFailure {
        try (ServerSocket listen = new ServerSocket()) {
            listen.setReuseAddress(true);
            listen.bind(new InetSocketAddress(port), 1);
            listen.setSoTimeout(timeoutMillis(ctx));
            ctx.listening("tcp-port " + port);
            try (Socket s = listen.accept()) {
                s.setSoTimeout(timeoutMillis(ctx));
                PingpongDest remote = PingpongDest.parse(readExactly(s.getInputStream(), PingpongDest.WIRE_SIZE,
                        "the client's address"));
                connect.connect(remote);
                OutputStream out = s.getOutputStream();
                out.write(mine.toWire());
                out.flush();
                byte[] done = readExactly(s.getInputStream(), PingpongDest.DONE.length, "the client's \"done\"");
                if (!Arrays.equals(done, PingpongDest.DONE)) {
                    throw new ToolFailure("the client sent " + Arrays.toString(done) + " instead of \"done\"");
                }
                return remote;
            }
        } catch (SocketTimeoutException e) {
            throw new ToolFailure("no client on TCP port " + port + " within the run's time", e);
        } catch (IOException e) {
            throw new ToolFailure("couldn't exchange addresses on TCP port " + port + ": " + e, e);
        }
    }

    private static int timeoutMillis(ToolContext ctx) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, ctx.remaining().toMillis()));
    }

    private static byte[] readExactly(InputStream in, int n, String what) throws IOException, ToolFailure {
        byte[] b = in.readNBytes(n);
        if (b.length != n) {
            throw new ToolFailure(what + ": " + b.length + " of " + n + " bytes before the connection closed");
        }
        return b;
    }
}
