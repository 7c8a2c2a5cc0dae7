package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rvt.api.Device;
import io.rvt.api.PortCounter;
import io.rvt.driver.jni.JniDriver;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * driver-jni in one process: the command's polls run both HCAs' port engines ({@link PlainJniHost#progress()}), also
 * the responder's of an RDMA WRITE stream, whose CQs nobody polls. Its backstop thread is kept out of the way (it
 * takes over only after 10 minutes without a poller), so the stream moves only if the command's thread runs the
 * responder's engine: its receives and its ACKs. Before, the responder ran on its backstop alone, which a loaded
 * 2-core machine left off the cores for 30-450 ms at a time (each an RC retry timeout of the stream).
 */
class JniProgressPollsTest {
    private static final int SIZE = 65536;
    private static final int ITERS = 2000;

    @Test
    @Timeout(180)
    void shouldRunTheResponderOfAWriteStreamFromTheCommandsPollsWhenItsBackstopWaits() {
        assumeTrue(JniDriver.isAvailable(), "driver-jni's native library");
        JniSetup setup = JniSetup.of(List.of("127.0.0.1", "127.0.0.1"), 0, 1);
        try (PlainJniHost host = PlainJniHost.start(setup, TimeUnit.MINUTES.toNanos(10))) {
            Device a = host.devices().get(0);
            Device b = host.devices().get(1);
            PerfSpec spec = new PerfSpec(PerfTest.WRITE, Transport.RC, false, new int[] {SIZE}, 1, ITERS, 0, 128);
            try (Progress progress = new Progress(System.err, false);
                    PerfRunner runner = new PerfRunner(host, a, b, spec, SIZE, progress)) {
                // not 6 minutes: without the command's thread in the responder's engine nothing comes back
                runner.firstCompletionWait(TimeUnit.SECONDS.toNanos(30));
                assertThat(runner.bandwidth(SIZE).iterations()).isEqualTo(ITERS);
            }
            assertThat(b.portCounter(1, PortCounter.RX_PACKETS)).as("packets the responder received")
                    .isGreaterThanOrEqualTo((long) ITERS * SIZE / 4096);
        }
    }
}
