package io.rvt.transport;

import io.rvt.transport.engine.TxInfo;
import java.lang.ref.WeakReference;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;
import java.util.function.Supplier;

/**
 * Each sending thread's scratch of one driver (its {@link TxInfo}, ICRC calculator, batch), made on the thread's
 * first use and allocation-free afterwards, that a long-lived thread does not keep beyond the driver. A
 * {@code ThreadLocal<Scratch>} would: the thread's own map holds the value strongly until the thread ends, and with
 * it the value's class and so the driver bundle's class loader, across an update or uninstall of the bundle (an
 * application thread under OSGi that once posted). Here the thread's map holds only JDK objects (a plain
 * {@code ThreadLocal} and a {@code WeakReference}); the scratch itself is kept by this holder, per thread weakly, so it
 * goes when its thread ends, when the driver (and with it this holder) is garbage, or at {@link #release()}.
 *
 * @param <T> the scratch type
 */
public final class ThreadScratch<T> {
    /** A plain ThreadLocal: a subclass, or one with a supplier, would be the driver's class in every thread's map. */
    private final ThreadLocal<WeakReference<T>> local = new ThreadLocal<>();
    /** What keeps each thread's scratch alive: until that thread ends, this holder is garbage, or release(). */
    private final Map<Thread, T> byThread = Collections.synchronizedMap(new WeakHashMap<>());
    private final Supplier<? extends T> factory;

    /**
     * @param factory makes a thread's scratch on its first {@link #get()}
     */
    public ThreadScratch(Supplier<? extends T> factory) {
        this.factory = Objects.requireNonNull(factory, "factory");
    }

    /**
     * @return the calling thread's scratch (two map lookups and no allocation after the thread's first call)
     */
    public T get() {
        WeakReference<T> ref = local.get();
        T sc = ref != null ? ref.get() : null;
        if (sc == null) {
            sc = factory.get();
            byThread.put(Thread.currentThread(), sc);
            local.set(new WeakReference<>(sc));
        }
        return sc;
    }

    /**
     * Lets every thread's scratch go (for a driver's {@code unregistering}): a thread that calls {@link #get()}
     * afterwards makes a new one.
     */
    public void release() {
        byThread.clear();
    }

    /** @return how many threads have a scratch now (for tests) */
    public int threads() {
        return byThread.size();
    }
}
