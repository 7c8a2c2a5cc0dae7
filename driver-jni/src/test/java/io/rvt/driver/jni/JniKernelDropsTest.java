package io.rvt.driver.jni;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.PortCounter;
import io.rvt.core.RvtDevice;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/**
 * Datagrams the kernel drops because a port's socket receive buffer is full are read from the socket's drop count
 * into {@code RX_KERNEL_DROPS}: a burst sent at a port nobody serves, with the smallest receive buffer, then served;
 * every datagram is either received or counted as dropped by the kernel.
 */
class JniKernelDropsTest {
    private static final int SENT = 300;

    @Test
    void shouldCountEveryDatagramTheKernelDroppedWhenTheReceiveBufferOverflows() throws Exception {
        InetAddress local = InetAddress.getByName("127.0.0.1");
        // ownThreads(false): nobody reads the socket until this thread runs doWork.
        JniDriver d = JniDriver.builder().name("drops").address("127.0.0.1").udpPort(0).ownThreads(false)
                .socketBufferBytes(1).build();
        RvtDevice dev = RvtDevice.register(d);
        try (DatagramSocket s = new DatagramSocket(0, local)) {
            byte[] junk = new byte[1000];
            for (int i = 0; i < SENT; i++) {
                s.send(new DatagramPacket(junk, junk.length, local, d.localPort(1)));
            }
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (dev.portCounter(1, PortCounter.RX_PACKETS) + dev.portCounter(1, PortCounter.RX_KERNEL_DROPS)
                    < SENT) {
                d.doWork();
                assertThat(System.nanoTime()).as("every datagram received or counted as dropped").isLessThan(deadline);
            }
            long received = dev.portCounter(1, PortCounter.RX_PACKETS);
            assertThat(dev.portCounter(1, PortCounter.RX_KERNEL_DROPS)).as("received %d", received).isPositive()
                    .isEqualTo(SENT - received).isEqualTo(d.statistics(1).kernelDrops());
            assertThat(dev.portCounter(1, PortCounter.RX_MALFORMED)).isEqualTo(received); // junk, all of it
        } finally {
            dev.unregister();
        }
    }
}
