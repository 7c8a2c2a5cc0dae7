package io.rvt.driver.sim.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.spi.agent.ThreadingMode;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A fabric with {@link ThreadingMode#PROGRESS}: {@link Fabric#progress(int)} delivers on the calling thread, and the
 * backstop delivers when no one calls it.
 */
class ProgressFabricTest {
    /** Records the thread each frame was delivered on. */
    static final class Recorder implements FrameHandler {
        final AtomicReference<Thread> thread = new AtomicReference<>();
        volatile int frames;

        @Override
        public void onFrame(Frame frame) {
            thread.set(Thread.currentThread());
            frame.release();
            frames++;
        }
    }

    @Test
    @Timeout(60)
    void shouldDeliverOnTheThreadThatProgressesTheFabric() {
        // a backstop that waits a minute: only this thread runs the fabric
        try (Fabric f = Fabric.builder(TestSupport.uniqueName("progress")).realTime()
                .threading(ThreadingMode.PROGRESS).backstopQuietNanos(TimeUnit.SECONDS.toNanos(60)).build()) {
            Recorder r = new Recorder();
            FabricPort a = f.newPort().attach();
            FabricPort b = f.newPort().handler(r).attach();
            assertThat(a.send(b.lid(), ByteBuffer.allocate(64))).isTrue();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (r.frames == 0 && System.nanoTime() - deadline < 0) {
                f.progress(32);
            }
            assertThat(r.frames).isEqualTo(1);
            assertThat(r.thread.get()).isSameAs(Thread.currentThread());
            assertThat(f.progressEngine().backstopWork()).isZero();
            assertThat(f.thread().getName()).isEqualTo("rvt-sim-fabric-" + f.name());
        }
    }

    @Test
    @Timeout(60)
    void shouldDeliverOnTheBackstopWhenNoOneProgressesTheFabric() {
        try (Fabric f = Fabric.builder(TestSupport.uniqueName("backstop")).realTime().build()) {
            assertThat(f.threading()).as("the real-time default").isEqualTo(ThreadingMode.PROGRESS);
            Recorder r = new Recorder();
            FabricPort a = f.newPort().attach();
            FabricPort b = f.newPort().handler(r).attach();
            for (int i = 0; i < 10; i++) {
                assertThat(a.send(b.lid(), ByteBuffer.allocate(64))).isTrue();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (r.frames < 10 && System.nanoTime() - deadline < 0) {
                LockSupport.parkNanos(1_000_000); // an application that does not poll
            }
            assertThat(r.frames).isEqualTo(10);
            assertThat(r.thread.get()).isSameAs(f.thread());
            assertThat(f.progressEngine().backstopWork()).isPositive();
        }
    }
}
