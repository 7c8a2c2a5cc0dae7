package io.rvt.driver.jni;

import java.util.Locale;

/**
 * rvt extension: the system-call economy of one port ({@link PortStatistics#socketCalls()}), counted from the port's
 * opening: how many batched send and receive calls its sockets made and how many datagrams each moved, how many
 * receives found nothing, and how many of the datagrams sent were RC ACKs. On {@link Wire#NATIVE} a send call is one
 * {@code sendmmsg} and a receive call one {@code recvmmsg}; {@link Wire#JDK} counts one send call per datagram (the
 * JDK sends one at a time) and one receive call per batch. An immutable snapshot.
 *
 * @param sendCalls {@code sendmmsg} calls of the port's sockets (its own and its flows' source sockets)
 * @param datagramsSent datagrams handed to those calls (also those the kernel refused)
 * @param receiveCalls {@code recvmmsg} calls of the port's socket
 * @param emptyReceives receive calls that returned no datagram
 * @param datagramsReceived datagrams those calls returned
 * @param acksSent RC ACKs among the datagrams sent ({@code ACKNOWLEDGE}, IBTA 9.7.5.1; one may acknowledge several
 *        PSNs)
 * @param gsoSegments datagrams sent that left as UDP GSO segments ({@link JniDriverBuilder#udpGso}: several
 *        datagrams in one {@code sendmmsg} entry)
 * @param groSegments packets received inside datagrams the kernel coalesced ({@link JniDriverBuilder#udpGro}: several
 *        packets in one received datagram, counted once in {@code datagramsReceived})
 * @param pollerWaits times a polling thread found the port idle for {@link JniDriverBuilder#pollerWaitNanos} and
 *        waited in {@code poll} on its socket rather than spin (each a system call, not a receive)
 * @param standInCycles duty cycles the port's backstop ran beside a caller that stayed stalled inside the port's
 *        engine ({@code ProgressEngine#standInWork}; their receive and send calls are counted above): how often a
 *        descheduled poller would otherwise have left the port silent
 */
public record SocketCalls(long sendCalls, long datagramsSent, long receiveCalls, long emptyReceives,
        long datagramsReceived, long acksSent, long gsoSegments, long groSegments, long pollerWaits,
        long standInCycles) {

    /**
     * A snapshot without the stand-in's cycles (the record before {@code standInCycles}).
     *
     * @param sendCalls see the record
     * @param datagramsSent see the record
     * @param receiveCalls see the record
     * @param emptyReceives see the record
     * @param datagramsReceived see the record
     * @param acksSent see the record
     * @param gsoSegments see the record
     * @param groSegments see the record
     * @param pollerWaits see the record
     */
    public SocketCalls(long sendCalls, long datagramsSent, long receiveCalls, long emptyReceives,
            long datagramsReceived, long acksSent, long gsoSegments, long groSegments, long pollerWaits) {
        this(sendCalls, datagramsSent, receiveCalls, emptyReceives, datagramsReceived, acksSent, gsoSegments,
                groSegments, pollerWaits, 0);
    }

    /**
     * A snapshot without the pollers' waits (the record before {@code pollerWaits}).
     *
     * @param sendCalls see the record
     * @param datagramsSent see the record
     * @param receiveCalls see the record
     * @param emptyReceives see the record
     * @param datagramsReceived see the record
     * @param acksSent see the record
     * @param gsoSegments see the record
     * @param groSegments see the record
     */
    public SocketCalls(long sendCalls, long datagramsSent, long receiveCalls, long emptyReceives,
            long datagramsReceived, long acksSent, long gsoSegments, long groSegments) {
        this(sendCalls, datagramsSent, receiveCalls, emptyReceives, datagramsReceived, acksSent, gsoSegments,
                groSegments, 0, 0);
    }

    /**
     * A snapshot without received GRO segments (the record before {@code groSegments}).
     *
     * @param sendCalls see the record
     * @param datagramsSent see the record
     * @param receiveCalls see the record
     * @param emptyReceives see the record
     * @param datagramsReceived see the record
     * @param acksSent see the record
     * @param gsoSegments see the record
     */
    public SocketCalls(long sendCalls, long datagramsSent, long receiveCalls, long emptyReceives,
            long datagramsReceived, long acksSent, long gsoSegments) {
        this(sendCalls, datagramsSent, receiveCalls, emptyReceives, datagramsReceived, acksSent, gsoSegments, 0, 0,
                0);
    }

    /** @return datagrams per send call, 0 without calls */
    public double datagramsPerSend() {
        return sendCalls == 0 ? 0 : (double) datagramsSent / sendCalls;
    }

    /** @return datagrams per receive call (empty ones included), 0 without calls */
    public double datagramsPerReceive() {
        return receiveCalls == 0 ? 0 : (double) datagramsReceived / receiveCalls;
    }

    /**
     * @param earlier a snapshot of the same port taken before this one
     * @return what the port did between the two
     */
    public SocketCalls minus(SocketCalls earlier) {
        return new SocketCalls(sendCalls - earlier.sendCalls, datagramsSent - earlier.datagramsSent,
                receiveCalls - earlier.receiveCalls, emptyReceives - earlier.emptyReceives,
                datagramsReceived - earlier.datagramsReceived, acksSent - earlier.acksSent,
                gsoSegments - earlier.gsoSegments, groSegments - earlier.groSegments,
                pollerWaits - earlier.pollerWaits, standInCycles - earlier.standInCycles);
    }

    /** @return e.g. {@code 120 sendmmsg (3.20 datagrams each), 400 recvmmsg (250 empty, 0.96 each), 30 ACKs sent} */
    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%d sendmmsg (%.2f datagrams each), %d recvmmsg (%d empty, %.2f each), %d"
                + " ACKs sent", sendCalls, datagramsPerSend(), receiveCalls, emptyReceives, datagramsPerReceive(),
                acksSent);
    }
}
