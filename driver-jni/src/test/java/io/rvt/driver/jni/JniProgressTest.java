package io.rvt.driver.jni;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.PortCounter;
import io.rvt.api.spi.agent.ThreadingMode;
import io.rvt.core.RvtDevice;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * driver-jni's progress hook ({@link ThreadingMode#PROGRESS}, the default): the thread that progresses the driver
 * receives on its own thread while it holds a port's engine; the port's thread is the backstop that receives when no
 * one progresses.
 */
@Timeout(60)
class JniProgressTest {
    private static final int SENT = 50;

    private static void sendJunk(JniDriver d) throws Exception {
        InetAddress local = InetAddress.getByName("127.0.0.1");
        try (DatagramSocket s = new DatagramSocket(0, local)) {
            byte[] junk = new byte[100];
            for (int i = 0; i < SENT; i++) {
                s.send(new DatagramPacket(junk, junk.length, local, d.localPort(1)));
            }
        }
    }

    @Test
    void shouldReceiveOnTheProgressingThreadWhenItHoldsThePortsEngine() throws Exception {
        // a backstop that waits a minute: only this thread runs the engine
        JniDriver d = JniDriver.builder().name("progress").address("127.0.0.1").udpPort(0)
                .backstopQuietNanos(TimeUnit.SECONDS.toNanos(60)).build();
        assertThat(d.threading()).isEqualTo(ThreadingMode.PROGRESS);
        RvtDevice dev = RvtDevice.register(d);
        try {
            sendJunk(d);
            long work = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (dev.portCounter(1, PortCounter.RX_MALFORMED) < SENT && System.nanoTime() - deadline < 0) {
                work += d.progress(32);
            }
            assertThat(dev.portCounter(1, PortCounter.RX_MALFORMED)).isEqualTo(SENT);
            assertThat(work).as("every datagram was received by this thread").isEqualTo(SENT);
        } finally {
            dev.unregister();
        }
    }

    @Test
    void shouldReceiveOnThePortsThreadWhenNoOneProgresses() throws Exception {
        JniDriver d = JniDriver.builder().name("backstop").address("127.0.0.1").udpPort(0).build();
        RvtDevice dev = RvtDevice.register(d);
        try {
            sendJunk(d);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (dev.portCounter(1, PortCounter.RX_MALFORMED) < SENT && System.nanoTime() - deadline < 0) {
                LockSupport.parkNanos(1_000_000); // an application that does not poll
            }
            assertThat(dev.portCounter(1, PortCounter.RX_MALFORMED)).isEqualTo(SENT);
        } finally {
            dev.unregister();
        }
    }

    @Test
    void shouldLetThePortsThreadWaitOnTheSocketAfterAFewEmptyCyclesWhenDedicated() throws Exception {
        // a port thread that spins long after its work keeps the core from the thread that must answer: with
        // --threading network and two processes on two cores, 100 spins made a ping-pong 5x slower than 10
        JniDriver d = JniDriver.builder().name("spins").address("127.0.0.1").udpPort(0)
                .threading(ThreadingMode.DEDICATED).build();
        RvtDevice dev = RvtDevice.register(d);
        try {
            sendJunk(d);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while ((dev.portCounter(1, PortCounter.RX_MALFORMED) < SENT || d.port(1).lastSpinRun() < 0)
                    && System.nanoTime() - deadline < 0) {
                LockSupport.parkNanos(1_000_000);
            }
            assertThat(dev.portCounter(1, PortCounter.RX_MALFORMED)).isEqualTo(SENT);
            assertThat(d.port(1).lastSpinRun()).as("empty cycles before the port's thread waited in poll")
                    .isBetween(1, 16);
        } finally {
            dev.unregister();
        }
    }

    @Test
    void shouldDoNothingInTheHookWhenDedicated() throws Exception {
        JniDriver d = JniDriver.builder().name("dedicated").address("127.0.0.1").udpPort(0)
                .threading(ThreadingMode.DEDICATED).build();
        RvtDevice dev = RvtDevice.register(d);
        try {
            sendJunk(d);
            assertThat(d.progress(32)).isZero();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (dev.portCounter(1, PortCounter.RX_MALFORMED) < SENT && System.nanoTime() - deadline < 0) {
                assertThat(d.progress(32)).isZero();
                LockSupport.parkNanos(1_000_000);
            }
            assertThat(dev.portCounter(1, PortCounter.RX_MALFORMED)).isEqualTo(SENT);
        } finally {
            dev.unregister();
        }
    }
}
