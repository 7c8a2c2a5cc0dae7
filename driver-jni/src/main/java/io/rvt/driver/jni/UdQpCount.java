package io.rvt.driver.jni;

import java.util.function.Consumer;

/**
 * The HCA's UD QPs (created, not yet destroyed), and the switch they drive: while there is one, the ports' sockets
 * report the received IP header's traffic class, hop limit and flow label, which only a UD receive's GRH carries
 * ({@link Datagrams#receiveIpInfo}); with none the kernel is spared writing them on every receive. Thread-safe.
 */
final class UdQpCount {
    private final Consumer<Boolean> receiveIpInfo;
    /** Guarded by {@code this}. */
    private int count;

    /** @param receiveIpInfo turns every port's IP-header reports on (true) or off */
    UdQpCount(Consumer<Boolean> receiveIpInfo) {
        this.receiveIpInfo = receiveIpInfo;
    }

    /** @param delta +1 for a UD QP made, -1 for one gone; the switch flips when the count leaves or reaches 0 */
    synchronized void add(int delta) {
        int next = Math.max(0, count + delta);
        if ((count == 0) != (next == 0)) {
            receiveIpInfo.accept(next > 0);
        }
        count = next;
    }
}
