package io.rvt.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.ref.WeakReference;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

class ThreadScratchTest {
    /** A scratch type of the test's own (a driver's class, as SimScratch or TxScratch). */
    static final class Scratch {
        final byte[] bytes = new byte[64];
    }

    private static void collectUntil(BooleanSupplier cleared) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!cleared.getAsBoolean() && System.nanoTime() - deadline < 0) {
            System.gc();
            Thread.sleep(10); // lets the collector run; the loop waits on the reference
        }
    }

    @Test
    void shouldGiveEachThreadOneScratchOfItsOwn() throws Exception {
        ThreadScratch<Scratch> s = new ThreadScratch<>(Scratch::new);
        Scratch mine = s.get();
        assertThat(s.get()).isSameAs(mine);
        AtomicReference<Scratch> other = new AtomicReference<>();
        Thread t = new Thread(() -> other.set(s.get()));
        t.start();
        t.join();
        assertThat(other.get()).isNotNull().isNotSameAs(mine);
        assertThat(s.get()).isSameAs(mine);
    }

    @Test
    void shouldNotKeepAScratchInALiveThreadOnceItsHolderIsGarbage() throws Exception {
        ThreadScratch<Scratch> s = new ThreadScratch<>(Scratch::new);
        WeakReference<Scratch> scratch = new WeakReference<>(s.get());
        WeakReference<ThreadScratch<Scratch>> holder = new WeakReference<>(s);
        s = null; // the driver that owned it is gone; this thread lives on
        collectUntil(() -> scratch.get() == null && holder.get() == null);
        assertThat(holder.get()).as("the holder").isNull();
        assertThat(scratch.get()).as("the live thread's scratch (a ThreadLocal<Scratch> would keep it)").isNull();
    }

    @Test
    void shouldLetEveryThreadsScratchGoOnReleaseAndMakeANewOneAfter() throws Exception {
        ThreadScratch<Scratch> s = new ThreadScratch<>(Scratch::new);
        WeakReference<Scratch> first = new WeakReference<>(s.get());
        assertThat(s.threads()).isEqualTo(1);
        s.release();
        assertThat(s.threads()).isZero();
        collectUntil(() -> first.get() == null);
        assertThat(first.get()).as("released while its holder and thread live").isNull();
        assertThat(s.get()).isNotNull();
        assertThat(s.threads()).isEqualTo(1);
    }

    @Test
    void shouldForgetTheScratchOfAThreadThatEnded() throws Exception {
        ThreadScratch<Scratch> s = new ThreadScratch<>(Scratch::new);
        AtomicReference<WeakReference<Scratch>> ref = new AtomicReference<>();
        Thread t = new Thread(() -> ref.set(new WeakReference<>(s.get())));
        t.start();
        t.join();
        t = null;
        // the holder forgets an ended thread at its next use (WeakHashMap: stale entries go on access)
        collectUntil(() -> s.threads() == 0 && ref.get().get() == null);
        assertThat(s.threads()).isZero();
        assertThat(ref.get().get()).as("the ended thread's scratch").isNull();
    }
}
