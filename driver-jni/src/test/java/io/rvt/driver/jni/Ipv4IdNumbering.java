package io.rvt.driver.jni;

import io.rvt.transport.header.BthDescriptor;
import io.rvt.transport.header.Icrc;
import java.net.InetAddress;
import java.nio.ByteBuffer;

/**
 * A socket decorator that makes every IPv4 unicast datagram received look as if a Linux host had sent it: rxe's IP
 * layer numbers the Identification of each packet ({@code __ip_select_ident}: a counter per source and destination)
 * and rxe computes the ICRC over that ID, where rvt sends ID 0. The ICRC field is changed by exactly what the ID
 * changes in it (the same for any content of one length, the CRC being affine), so a datagram corrupted on the way
 * stays corrupted and a good one becomes good under its new ID. Allocates nothing per datagram. Multicast packets
 * (whose ICRC is over the group's address) are left as they are.
 */
final class Ipv4IdNumbering extends ForwardingDatagrams {
    private final Icrc icrc = new Icrc();
    private final int localV4;
    private int nextId;
    /** Datagrams given a non-zero ID (the receive thread's; volatile for the test's thread). */
    private volatile long numbered;

    /**
     * @param real the socket decorated
     * @param firstId the first ID handed out (then one more per datagram, wrapping through 0 as Linux's does)
     */
    Ipv4IdNumbering(Datagrams real, int firstId) {
        super(real);
        this.nextId = firstId & 0xFFFF;
        InetAddress a = real.localAddress();
        this.localV4 = a.getAddress().length == 4 ? ByteBuffer.wrap(a.getAddress()).getInt() : 0;
    }

    /** @return the datagrams received with a non-zero ID so far */
    long numbered() {
        return numbered;
    }

    @Override
    public int receive(RxBatch batch) {
        int n = real.receive(batch);
        for (int i = 0; i < n; i++) {
            number(batch, i);
        }
        return n;
    }

    private void number(RxBatch rx, int i) {
        int off = rx.offset(i);
        int len = rx.length(i) - Icrc.LENGTH;
        ByteBuffer data = rx.data;
        if (rx.sourceIsIpv6(i) || rx.truncated(i) || len < BthDescriptor.LENGTH || len > 0xFFFF - 32
                || BthDescriptor.destQp(data, off) == BthDescriptor.MULTICAST_QPN) {
            return;
        }
        int id = nextId;
        nextId = (id + 1) & 0xFFFF;
        int src = rx.sourceV4(i);
        int sport = rx.sourcePort(i);
        int dport = real.localPort();
        int change = icrc.computeRoceV4(src, localV4, id, true, sport, dport, data, off, len)
                ^ icrc.computeRoceV4(src, localV4, 0, true, sport, dport, data, off, len);
        Icrc.write(data, off + len, Icrc.read(data, off + len) ^ change);
        if (id != 0) {
            numbered++;
        }
    }
}
