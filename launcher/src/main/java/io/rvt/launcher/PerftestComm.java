package io.rvt.launcher;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PushbackInputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;

/**
 * perftest's channel between its server and client (perftest_communication.c): without {@code -R} a TCP connection to
 * port {@code -p} (18515) ({@link Tcp}), with {@code -R} an RC connection that rdma_cm makes to the same port, whose
 * exchanges are SENDs ({@link PerftestRdmaCm}). Every exchange is lock-step, as {@code ctx_xchg_data} and {@code ctx_hand_shake} are: the
 * client writes its part and reads the server's, the server reads and then writes, both of the same size. What the
 * programs exchange is a fixed script ({@link RemotePerf}): the versions, page and cache line sizes, the MTU, each
 * QP's {@link PerftestDest}, hand-shakes that synchronise the two before and after the test and between the rows of
 * {@code -a}, the bandwidth reports, and {@code "done"}.
 */
abstract class PerftestComm implements AutoCloseable {
    /** perftest's TCP port ({@code DEF_PORT}). */
    static final int PORT = 18515;
    /** The version rvt says it speaks: perftest 4.5's ({@code VERSION}, 6.06), in its 16-byte buffer. */
    static final String VERSION = "6.06";
    /**
     * What rvt writes after the version's terminating NUL in its 16-byte buffer: perftest reads the version as a C
     * string ({@code atof}, {@code check_version_compatibility}) and never sees it; another rvt takes it as the sign
     * that the peer is rvt ({@link #peerIsRvt}).
     */
    static final String RVT_MARK = "rvt";
    /** The oldest version perftest 4.5 talks to ({@code check_version_compatibility}). */
    static final double OLDEST = 5.70;
    /** perftest's {@code cycle_buffer} default: the page size. */
    static final int CYCLE_BUFFER = 4096;
    /** The largest peer's {@code cycle_buffer} taken (a page size: 64 KiB on some machines; 16 MiB is plenty). */
    static final int MAX_CYCLE_BUFFER = 16 << 20;
    /** perftest's {@code DEF_CACHE_LINE_SIZE}. */
    static final int CACHE_LINE = 64;

    /** True on the client's side, which writes first. */
    final boolean client;
    /** The peer's address, in messages: its TCP address until its QP data names its RDMA address. */
    String peer;
    /**
     * perftest's {@code cycle_buffer} after {@link #prologue}: the larger of the two sides' (perftest's
     * {@code check_sys_data} keeps the larger), the bytes a perftest client steps through at the peer's vaddr.
     */
    int cycleBuffer = CYCLE_BUFFER;
    /** After {@link #prologue}: whether the peer's version buffer carried {@link #RVT_MARK} (it is rvt, not perftest). */
    boolean peerIsRvt;

    PerftestComm(boolean client, String peer) {
        this.client = client;
        this.peer = peer;
    }

    /**
     * One lock-step exchange ({@code ctx_xchg_data}).
     *
     * @param mine this side's bytes
     * @return the peer's, as many
     * @throws IllegalStateException if the channel fails or the peer closes it
     */
    abstract byte[] exchange(byte[] mine);

    /**
     * {@code ctx_hand_shake}: exchanges QP data (and synchronises).
     *
     * @param mine this side's
     * @return the peer's
     */
    abstract PerftestDest handShake(PerftestDest mine);

    /** Writes perftest's closing {@code "done"} after the last hand-shake, if the channel has one, and closes. */
    abstract void done();

    /**
     * @param patience the most each later exchange may wait for the peer (a server's for the client's whole test)
     */
    abstract void patience(Duration patience);

    /** @return whether the peer has sent what this side has not read yet (it has reached its next exchange) */
    abstract boolean peerWaiting();

    /** Closes the channel (and, with {@code -R}, the connections made through it). */
    @Override
    public abstract void close();

    /**
     * The exchanges every program starts with: {@code exchange_versions}, {@code check_sys_data} and
     * {@code check_mtu}.
     *
     * @param mtuCode this side's path MTU as {@code enum ibv_mtu} (1 = 256 ... 5 = 4096)
     * @return the MTU both use: the smaller of the two, as perftest picks it
     * @throws IllegalStateException if the peer is not perftest (or rvt), or too old for perftest 4.5
     */
    int prologue(int mtuCode) {
        byte[] v = new byte[16];
        byte[] mine = VERSION.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(mine, 0, v, 0, mine.length);
        byte[] mark = RVT_MARK.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(mark, 0, v, mine.length + 1, mark.length);
        byte[] theirs = exchange(v);
        String text = cString(theirs);
        peerIsRvt = theirs.length == v.length && text.length() + 1 + mark.length <= v.length
                && Arrays.equals(theirs, text.length() + 1, text.length() + 1 + mark.length, mark, 0, mark.length);
        double version = leadingNumber(text);
        if (version < OLDEST) {
            throw new IllegalStateException("the peer at " + peer + " is not perftest " + OLDEST + " or later (its "
                    + "version is '" + printable(text) + "'; perftest's rule: older versions are refused)");
        }
        cycleBuffer = cycleBuffer(ByteBuffer.wrap(exchange(ByteBuffer.allocate(4).putInt(CYCLE_BUFFER).array()))
                .getInt(), peer);
        exchange(ByteBuffer.allocate(4).putInt(CACHE_LINE).array());
        byte[] code = exchange(new byte[] {(byte) ('0' + mtuCode), 0});
        int rem = code[0] - '0';
        return rem >= 1 && rem <= 5 && rem < mtuCode ? rem : mtuCode;
    }

    /**
     * perftest's {@code check_sys_data}: both sides use the larger {@code cycle_buffer}.
     *
     * @param theirs the peer's {@code cycle_buffer}
     * @param peer the peer's address, for the message
     * @return the larger of this side's and the peer's
     * @throws IllegalStateException if the peer's is not between 1 and {@link #MAX_CYCLE_BUFFER}
     */
    static int cycleBuffer(int theirs, String peer) {
        if (theirs < 1 || theirs > MAX_CYCLE_BUFFER) {
            throw new IllegalStateException("the peer at " + peer + " sent a cycle buffer of " + theirs
                    + " bytes (1 to " + MAX_CYCLE_BUFFER + " taken): not perftest's page size");
        }
        return Math.max(CYCLE_BUFFER, theirs);
    }

    /**
     * {@code xchg_bw_reports}: size, iterations, peak and average bandwidth and message rate, each exchanged on its
     * own, big-endian (doubles byte-swapped as {@code hton_double} does).
     *
     * @param r this side's row
     * @return the peer's, or null if it is no row (perftest's passive server sends one it never filled)
     */
    BandwidthResult reports(BandwidthResult r) {
        long size = exchange(ByteBuffer.allocate(8).putLong(r.size()).array(), 8);
        long iters = exchange(ByteBuffer.allocate(8).putLong(r.iterations()).array(), 8);
        double peak = Double.longBitsToDouble(exchange(bits(r.peakMiBps()), 8));
        double avg = Double.longBitsToDouble(exchange(bits(r.averageMiBps()), 8));
        double rate = Double.longBitsToDouble(exchange(bits(r.messageRateMpps()), 8));
        if (size <= 0 || size > Integer.MAX_VALUE || iters < 0) {
            // perftest's passive server sends a report it never filled (uninitialised memory); its client ignores it
            return null;
        }
        return new BandwidthResult((int) size, iters, peak, avg, rate);
    }

    private static byte[] bits(double d) {
        return ByteBuffer.allocate(8).putLong(Double.doubleToRawLongBits(d)).array();
    }

    private long exchange(byte[] mine, int n) {
        return ByteBuffer.wrap(exchange(mine)).getLong();
    }

    /** {@code ctx_close_connection}: a last hand-shake, then {@code "done"}, then the channel closes. */
    void closeConnection(PerftestDest mine) {
        handShake(mine);
        done();
    }

    static String cString(byte[] b) {
        int end = 0;
        while (end < b.length && b[end] != 0) {
            end++;
        }
        return new String(b, 0, end, StandardCharsets.US_ASCII);
    }

    private static String printable(String s) {
        StringBuilder b = new StringBuilder();
        for (char c : s.toCharArray()) {
            b.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        return b.toString();
    }

    /** @return the number {@code atof} reads at the start of {@code s}, 0 if none */
    static double leadingNumber(String s) {
        int i = 0;
        while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '.')) {
            i++;
        }
        try {
            return i == 0 ? 0 : Double.parseDouble(s.substring(0, i));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** The TCP channel of perftest without {@code -R}. */
    static final class Tcp extends PerftestComm {
        /** How often {@link #peerWaiting()} looks for the peer's end of the stream, which {@code available} hides. */
        private static final long EOF_LOOK_NANOS = 100_000_000L;
        private final Socket socket;
        private final PushbackInputStream in;
        private final OutputStream out;
        private long nextEofLook = System.nanoTime();

        private Tcp(Socket socket, boolean client, String peer) throws IOException {
            super(client, peer);
            this.socket = socket;
            this.in = new PushbackInputStream(socket.getInputStream(), 1);
            this.out = socket.getOutputStream();
            socket.setTcpNoDelay(true);
        }

        /**
         * Connects to a server ({@code ethernet_client_connect}).
         *
         * @param server its address
         * @param port its TCP port
         * @param patience how long the connect and each read may take
         * @return the channel
         */
        static Tcp connect(InetAddress server, int port, Duration patience) {
            Socket s = new Socket();
            String where = server.getHostAddress() + " TCP port " + port;
            try {
                s.connect(new InetSocketAddress(server, port), millis(patience));
                s.setSoTimeout(millis(patience));
                return new Tcp(s, true, server.getHostAddress());
            } catch (IOException e) {
                try {
                    s.close();
                } catch (IOException x) {
                    e.addSuppressed(x);
                }
                throw new IllegalStateException("couldn't connect to the server at " + where + ": " + e.getMessage(),
                        e);
            }
        }

        /**
         * @param listen a listening socket ({@code ethernet_server_connect} listens with a backlog of 1)
         * @param patience how long to wait for a client, then for each read
         * @return the client's channel
         */
        static Tcp accept(ServerSocket listen, Duration patience) {
            try {
                listen.setSoTimeout(millis(patience));
                Socket s = listen.accept();
                s.setSoTimeout(millis(patience));
                return new Tcp(s, false, s.getInetAddress().getHostAddress());
            } catch (SocketTimeoutException e) {
                throw new IllegalStateException("no client on TCP port " + listen.getLocalPort() + " within "
                        + patience.toSeconds() + " s", e);
            } catch (IOException e) {
                throw new IllegalStateException("couldn't accept a client on TCP port " + listen.getLocalPort() + ": "
                        + e.getMessage(), e);
            }
        }

        @Override
        void patience(Duration patience) {
            try {
                socket.setSoTimeout(millis(patience));
            } catch (IOException e) {
                throw new IllegalStateException("the connection to " + peer + " failed: " + e.getMessage(), e);
            }
        }

        @Override
        boolean peerWaiting() {
            try {
                if (in.available() > 0) {
                    return true;
                }
                long now = System.nanoTime();
                if (now - nextEofLook < 0) {
                    return false;
                }
                nextEofLook = now + EOF_LOOK_NANOS;
                return peek();
            } catch (IOException e) {
                return true; // the next read says what went wrong
            }
        }

        /**
         * Reads one byte within a millisecond and puts it back: a peer that has closed the connection (a client
         * whose report failed, a killed process) shows here as the end of the stream, where {@code available}
         * says 0 for ever and a passive server would wait out its whole patience (the next read says it).
         *
         * @return whether a byte or the end of the stream is there
         */
        private boolean peek() throws IOException {
            int patience = socket.getSoTimeout();
            socket.setSoTimeout(1);
            try {
                int b = in.read();
                if (b >= 0) {
                    in.unread(b);
                }
                return true;
            } catch (SocketTimeoutException e) {
                return false;
            } finally {
                socket.setSoTimeout(patience);
            }
        }

        @Override
        byte[] exchange(byte[] mine) {
            try {
                if (client) {
                    out.write(mine);
                    out.flush();
                    return read(mine.length);
                }
                byte[] theirs = read(mine.length);
                out.write(mine);
                out.flush();
                return theirs;
            } catch (SocketTimeoutException e) {
                throw new IllegalStateException("the peer at " + peer + " said nothing for "
                        + timeoutSeconds() + " s", e);
            } catch (IOException e) {
                throw new IllegalStateException("the connection to the peer at " + peer + " failed: "
                        + e.getMessage(), e);
            }
        }

        private long timeoutSeconds() {
            try {
                return socket.getSoTimeout() / 1000L;
            } catch (IOException e) {
                return 0;
            }
        }

        private byte[] read(int n) throws IOException {
            byte[] b = new byte[n];
            int got = 0;
            while (got < n) {
                int r = in.read(b, got, n - got);
                if (r < 0) {
                    throw new IOException("the peer closed the connection (" + got + " of " + n + " bytes read)");
                }
                got += r;
            }
            return b;
        }

        @Override
        PerftestDest handShake(PerftestDest mine) {
            byte[] theirs = exchange(mine.toText());
            try {
                return PerftestDest.parseText(theirs);
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException(e.getMessage() + " (from " + peer + ")", e);
            }
        }

        @Override
        void done() {
            try {
                out.write("done\0".getBytes(StandardCharsets.US_ASCII));
                out.flush();
            } catch (IOException e) {
                // perftest does not read it: a peer that has gone already is no failure
            }
            close();
        }

        @Override
        public void close() {
            try {
                socket.close();
            } catch (IOException e) {
                // closing: nothing to tell
            }
        }
    }

    static int millis(Duration d) {
        return (int) Math.min(Integer.MAX_VALUE, Math.max(1, d.toMillis()));
    }
}
