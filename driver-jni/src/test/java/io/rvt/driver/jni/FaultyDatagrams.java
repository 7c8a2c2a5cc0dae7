package io.rvt.driver.jni;

import io.rvt.testkit.Faults;
import java.util.ArrayDeque;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A socket decorator for the conformance suite's fault injection: drops, duplicates, delays behind later datagrams
 * (reorders) or flips one bit of datagrams on the way out, with seeded randomness, or drops everything (partition).
 *
 * <p>A datagram held back for reordering goes out behind later ones, or after {@link #HOLD_LIMIT_NANOS} at the
 * socket's next call (a receive or a wait of its port engine) when none follows: held until the socket's next send,
 * a lone retry after an RC timeout or the ACK to it waited for the next timeout's retry, so reordering counted as a
 * loss exactly when the requester sends one packet at a time and ran the retry count out more often than the bounded
 * delay of driver-sim's reordering (which mirrors a real network's) does. A flow socket only sends, so every
 * socket of the group (a fixture's) releases the group's overdue datagrams.
 */
final class FaultyDatagrams extends ForwardingDatagrams {
    private final SplittableRandom random;
    private final TxBatch out;
    private final ArrayDeque<byte[]> heldData = new ArrayDeque<>();
    private final ArrayDeque<Peer> heldPeer = new ArrayDeque<>();
    /** When each held datagram was held (System.nanoTime), in the order of {@link #heldData}. */
    private final ArrayDeque<Long> heldSince = new ArrayDeque<>();
    /**
     * The longest a held datagram waits for a later one: well under the RC local ACK timeout of the suite's QPs
     * (67 ms), longer than a stream's gap between two sends.
     */
    static final long HOLD_LIMIT_NANOS = 2_000_000L;
    private static final int HOLD_LIMIT_MILLIS = (int) (HOLD_LIMIT_NANOS / 1_000_000L);
    private volatile Faults faults = Faults.NONE;
    private volatile boolean partitioned;

    /** The device whose socket this is, for {@link #counts()}. */
    final String owner;
    // What the faults did (under this monitor): for a failure message.
    private long sent;
    private long lost;
    private long corrupted;
    private long held;
    private long releasedLate;
    private long duplicated;
    /** The sockets that release each other's overdue datagrams, this one among them. */
    private final List<FaultyDatagrams> group;
    /** {@link #heldData}'s size, for the unlocked look of {@link #releaseOverdue}. */
    private volatile int heldCount;

    /**
     * @param owner the device whose socket this is
     * @param real the socket decorated
     * @param seed the faults' seed
     * @param slotSize the largest datagram
     * @param group the sockets whose receives and waits release each other's overdue datagrams; this one is added
     */
    FaultyDatagrams(String owner, Datagrams real, long seed, int slotSize, List<FaultyDatagrams> group) {
        super(real);
        this.owner = owner;
        this.group = group;
        this.random = new SplittableRandom(seed);
        this.out = new TxBatch(NativeUdp.MAX_BATCH, slotSize);
        group.add(this);
    }

    void faults(Faults f) {
        faults = f;
    }

    void partition(boolean cut) {
        partitioned = cut;
    }

    @Override
    public synchronized int send(TxBatch batch) {
        Faults f = faults;
        batch.sendCalls = 0;
        if (partitioned) {
            batch.clear();
            return 0;
        }
        if (f.equals(Faults.NONE) && heldData.isEmpty()) {
            return real.send(batch);
        }
        int dropped = 0;
        for (int i = 0; i < batch.count; i++) {
            int len = batch.lengths[i];
            byte[] copy = new byte[len];
            batch.copyDatagram(i, copy);
            Peer to = batch.peers[i];
            sent++;
            if (random.nextDouble() < f.loss()) {
                lost++;
                continue;
            }
            if (random.nextDouble() < f.corrupt()) {
                corrupted++;
                int at;
                do {
                    at = random.nextInt(len);
                } while (at == 4); // BTH resv8a (FECN/BECN) is masked out of the ICRC
                copy[at] ^= (byte) (1 << random.nextInt(8));
            }
            if (random.nextDouble() < f.reorder()) {
                heldData.add(copy);
                heldPeer.add(to);
                heldSince.add(System.nanoTime());
                heldCount = heldData.size();
                held++;
                continue;
            }
            dropped += emit(copy, to);
            if (random.nextDouble() < f.duplicate()) {
                duplicated++;
                dropped += emit(copy, to);
            }
            while (!heldData.isEmpty() && random.nextBoolean()) {
                dropped += emitHeld();
            }
        }
        batch.clear();
        while (!heldData.isEmpty() && f.reorder() == 0) {
            dropped += emitHeld();
        }
        if (out.count > 0) {
            dropped += real.send(out);
            batch.sendCalls = out.sendCalls;
        }
        return dropped;
    }

    /** Sends the held datagrams that waited {@link #HOLD_LIMIT_NANOS} for a later one that did not come. */
    private void releaseOverdue() {
        if (heldCount == 0 || partitioned) {
            return;
        }
        synchronized (this) {
            long now = System.nanoTime();
            while (!heldData.isEmpty() && now - heldSince.peek() >= HOLD_LIMIT_NANOS) {
                emitHeld();
                releasedLate++;
            }
            if (out.count > 0) {
                real.send(out);
            }
        }
    }

    private int emitHeld() {
        heldSince.poll();
        int dropped = emit(heldData.poll(), heldPeer.poll());
        heldCount = heldData.size();
        return dropped;
    }

    /**
     * @return what the faults did to the datagrams sent through this socket so far: sent (the datagrams given to it),
     *         lost, corrupted, held back (reordered), of those released by {@link #HOLD_LIMIT_NANOS} (no later one
     *         came), still held, duplicated
     */
    synchronized String counts() {
        return "sent=" + sent + " lost=" + lost + " corrupted=" + corrupted + " held=" + held + " released_late="
                + releasedLate + " still_held=" + heldData.size() + " duplicated=" + duplicated;
    }

    /** @return true if a datagram of the group is held back */
    private boolean groupHolds() {
        for (int i = 0, n = group.size(); i < n; i++) { // indexed: no iterator per call (JniAllocationTest)
            if (group.get(i).heldCount != 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * Releases the group's overdue datagrams; at every receive, so it allocates nothing: a for-each made a
     * CopyOnWriteArrayList iterator per call, which C2 did not always scalar-replace (JniAllocationTest counted
     * ~48 B per round, 240 KB over its 5,000, in about one run of three at load).
     */
    private void releaseGroupOverdue() {
        for (int i = 0, n = group.size(); i < n; i++) {
            group.get(i).releaseOverdue();
        }
    }

    private int emit(byte[] packet, Peer to) {
        int dropped = 0;
        if (out.isFull()) {
            dropped = real.send(out);
        }
        out.data.put(out.nextOffset(), packet);
        out.add(to, packet.length);
        return dropped;
    }

    @Override
    public int receive(RxBatch batch) {
        releaseGroupOverdue();
        return real.receive(batch);
    }

    @Override
    public void await(int timeoutMillis) {
        releaseGroupOverdue();
        // wake in time to release a datagram still held
        real.await(groupHolds() ? Math.min(timeoutMillis, HOLD_LIMIT_MILLIS) : timeoutMillis);
    }
}
