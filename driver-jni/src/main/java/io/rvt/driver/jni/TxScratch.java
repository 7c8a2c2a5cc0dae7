package io.rvt.driver.jni;

import io.rvt.transport.TxInfo;
import io.rvt.transport.header.Icrc;
import java.lang.ref.WeakReference;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * What one sending thread needs: its batch of datagrams, the {@link TxInfo} the transport fills, and an ICRC
 * calculator; and the port and socket the batch is for (a batch goes out through one socket).
 */
final class TxScratch {
    /**
     * The shortest payload sent by reference on the native wire: below it, copying into the slot costs less than
     * the extra segments of a gather.
     */
    static final int ZERO_COPY_MIN = 512;

    final TxBatch batch;
    final TxInfo info = new TxInfo();
    final Icrc icrc = new Icrc();
    PortEngine port;
    /** The socket of {@link #port} the batch goes out through (its UDP source port). */
    Datagrams sender;

    /**
     * @param slots datagrams per batch
     * @param slotSize bytes per slot
     * @param gather whether the wire gathers datagrams (native): then the transport references payload in registered
     *        memory instead of copying it into the slot
     */
    TxScratch(int slots, int slotSize, boolean gather) {
        this.batch = new TxBatch(slots, slotSize);
        if (gather) {
            info.payloadByReference(TxBatch.MAX_PAYLOAD_SEGMENTS, ZERO_COPY_MIN);
        }
    }

    /**
     * Each posting thread's scratch, made on its first post (no allocation afterwards), held weakly: the thread's map
     * then holds only a JDK object, so a thread that outlives the driver (an application thread under OSGi, across an
     * update of this bundle) keeps neither the driver nor its class loader. A plain {@code ThreadLocal} for the same
     * reason (a subclass or a supplier would be this loader's).
     */
    static final class PerThread {
        private final ThreadLocal<WeakReference<TxScratch>> local = new ThreadLocal<>();
        /** What keeps each posting thread's scratch alive: until that thread ends or the driver is garbage. */
        private final Map<Thread, TxScratch> byThread = Collections.synchronizedMap(new WeakHashMap<>());
        private final int slots;
        private final int slotSize;
        private final boolean gather;

        PerThread(int slots, int slotSize, boolean gather) {
            this.slots = slots;
            this.slotSize = slotSize;
            this.gather = gather;
        }

        /** @return the calling thread's scratch */
        TxScratch get() {
            WeakReference<TxScratch> ref = local.get();
            TxScratch sc = ref != null ? ref.get() : null;
            if (sc == null) {
                sc = new TxScratch(slots, slotSize, gather);
                byThread.put(Thread.currentThread(), sc);
                local.set(new WeakReference<>(sc));
            }
            return sc;
        }
    }
}
