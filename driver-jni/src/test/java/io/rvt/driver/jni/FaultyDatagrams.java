package io.rvt.driver.jni;

import io.rvt.testkit.Faults;
import java.net.InetAddress;
import java.util.ArrayDeque;
import java.util.SplittableRandom;

/**
 * A socket decorator for the conformance suite's fault injection: drops, duplicates, delays behind later datagrams
 * (reorders) or flips one bit of datagrams on the way out, with seeded randomness, or drops everything (partition).
 */
final class FaultyDatagrams implements Datagrams {
    private final Datagrams real;
    private final SplittableRandom random;
    private final TxBatch out;
    private final ArrayDeque<byte[]> heldData = new ArrayDeque<>();
    private final ArrayDeque<Peer> heldPeer = new ArrayDeque<>();
    private volatile Faults faults = Faults.NONE;
    private volatile boolean partitioned;

    FaultyDatagrams(Datagrams real, long seed, int slotSize) {
        this.real = real;
        this.random = new SplittableRandom(seed);
        this.out = new TxBatch(NativeUdp.MAX_BATCH, slotSize);
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
            if (random.nextDouble() < f.loss()) {
                continue;
            }
            if (random.nextDouble() < f.corrupt()) {
                int at;
                do {
                    at = random.nextInt(len);
                } while (at == 4); // BTH resv8a (FECN/BECN) is masked out of the ICRC
                copy[at] ^= (byte) (1 << random.nextInt(8));
            }
            if (random.nextDouble() < f.reorder()) {
                heldData.add(copy);
                heldPeer.add(to);
                continue;
            }
            dropped += emit(copy, to);
            if (random.nextDouble() < f.duplicate()) {
                dropped += emit(copy, to);
            }
            while (!heldData.isEmpty() && random.nextBoolean()) {
                dropped += emit(heldData.poll(), heldPeer.poll());
            }
        }
        batch.clear();
        while (!heldData.isEmpty() && f.reorder() == 0) {
            dropped += emit(heldData.poll(), heldPeer.poll());
        }
        if (out.count > 0) {
            dropped += real.send(out);
            batch.sendCalls = out.sendCalls;
        }
        return dropped;
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
    public InetAddress localAddress() {
        return real.localAddress();
    }

    @Override
    public int localPort() {
        return real.localPort();
    }

    @Override
    public int receive(RxBatch batch) {
        return real.receive(batch);
    }

    @Override
    public void await(int timeoutMillis) {
        real.await(timeoutMillis);
    }

    @Override
    public void wakeup() {
        real.wakeup();
    }

    @Override
    public long kernelDrops() {
        return real.kernelDrops();
    }

    @Override
    public int bufferBytes(boolean send) {
        return real.bufferBytes(send);
    }

    @Override
    public int lastErrno() {
        return real.lastErrno();
    }

    @Override
    public void close() {
        real.close();
    }
}
