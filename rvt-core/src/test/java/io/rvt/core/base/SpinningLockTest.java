package io.rvt.core.base;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.core.TestUtil;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class SpinningLockTest {
    @Test
    void shouldBeReentrant() {
        SpinningLock lock = new SpinningLock();
        lock.lock();
        lock.lock();
        assertThat(lock.getHoldCount()).isEqualTo(2);
        lock.unlock();
        lock.unlock();
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    @Timeout(30)
    void shouldExcludeAndParkWhenHeldLongerThanTheSpin() throws Exception {
        SpinningLock lock = new SpinningLock();
        long[] plain = new long[1]; // guarded by the lock only: a lost update shows a broken exclusion
        int threads = 4;
        int perThread = 200_000;
        CountDownLatch start = new CountDownLatch(1);
        Thread[] ts = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            ts[t] = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < perThread; i++) {
                    lock.lock();
                    try {
                        plain[0]++;
                    } finally {
                        lock.unlock();
                    }
                }
            });
            ts[t].start();
        }
        start.countDown();
        for (Thread t : ts) {
            t.join();
        }
        assertThat(plain[0]).isEqualTo((long) threads * perThread);

        // A holder that keeps the lock past the spin: the waiter falls back to parking and still gets it.
        AtomicLong got = new AtomicLong();
        lock.lock();
        Thread waiter = new Thread(() -> {
            lock.lock();
            got.incrementAndGet();
            lock.unlock();
        });
        waiter.start();
        TestUtil.await(() -> lock.isParked(waiter), "waiter parked in the queue");
        assertThat(got.get()).isZero();
        lock.unlock();
        waiter.join();
        assertThat(got.get()).isEqualTo(1);
    }

    @Test
    void shouldRefuseAnUnlockByAThreadThatDoesNotHoldIt() throws Exception {
        SpinningLock lock = new SpinningLock();
        lock.lock();
        Throwable[] thrown = new Throwable[1];
        Thread other = new Thread(() -> {
            try {
                lock.unlock();
            } catch (Throwable t) {
                thrown[0] = t;
            }
        });
        other.start();
        other.join();
        assertThat(thrown[0]).isInstanceOf(IllegalMonitorStateException.class);
        assertThat(lock.isLocked()).isTrue();
        assertThat(lock.getHoldCount()).isEqualTo(1);
        lock.unlock();
        assertThat(lock.isLocked()).isFalse();
        assertThat(lock.getHoldCount()).isZero();
    }

    @Test
    @Timeout(30)
    void shouldGiveUpATimedTryLockAndAnInterruptedLockWhileAnotherThreadHoldsIt() throws Exception {
        SpinningLock lock = new SpinningLock();
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            lock.lock();
            held.countDown();
            try {
                done.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                lock.unlock();
            }
        });
        holder.start();
        held.await();
        assertThat(lock.tryLock()).isFalse();
        assertThat(lock.tryLock(2, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(lock.isHeldByCurrentThread()).isFalse();

        Throwable[] thrown = new Throwable[1];
        Thread waiter = new Thread(() -> {
            try {
                lock.lockInterruptibly();
                lock.unlock();
            } catch (Throwable t) {
                thrown[0] = t;
            }
        });
        waiter.start();
        TestUtil.await(() -> lock.isParked(waiter), "waiter parked in the queue");
        waiter.interrupt();
        waiter.join();
        assertThat(thrown[0]).isInstanceOf(InterruptedException.class);
        assertThat(lock.hasParkedThreads()).isFalse();

        done.countDown();
        holder.join();
        assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
        lock.unlock();
    }

    @Test
    void shouldBeAPlainLockAndNotAReentrantLockWhoseQueueQueriesWouldLie() {
        assertThat(new SpinningLock()).isInstanceOf(java.util.concurrent.locks.Lock.class)
                .isNotInstanceOf(java.util.concurrent.locks.ReentrantLock.class);
    }

    @Test
    void shouldHaveNoConditionsBecauseItStandsForASpinlock() {
        SpinningLock lock = new SpinningLock();
        org.assertj.core.api.Assertions.assertThatThrownBy(lock::newCondition)
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("spinlock");
    }

    @Test
    @Timeout(30)
    void shouldLetEveryWaiterInWhenMoreWaitThanThereAreParkingSlots() throws Exception {
        SpinningLock lock = new SpinningLock();
        int waiters = 2 * SpinningLock.PARK_SLOTS + 1; // the ones without a slot wake on their own timeout
        AtomicLong got = new AtomicLong();
        lock.lock();
        Thread[] ts = new Thread[waiters];
        for (int i = 0; i < waiters; i++) {
            ts[i] = new Thread(() -> {
                lock.lock();
                try {
                    got.incrementAndGet();
                } finally {
                    lock.unlock();
                }
            });
            ts[i].start();
        }
        // every slot taken: the unlock below has parked threads to wake
        TestUtil.await(() -> {
            int parked = 0;
            for (Thread t : ts) {
                parked += lock.isParked(t) ? 1 : 0;
            }
            return parked == SpinningLock.PARK_SLOTS;
        }, "all parking slots taken");
        assertThat(got.get()).isZero();
        lock.unlock();
        for (Thread t : ts) {
            t.join();
        }
        assertThat(got.get()).isEqualTo(waiters);
        assertThat(lock.hasParkedThreads()).isFalse();
        assertThat(lock.isLocked()).isFalse();
    }
}
