package io.rvt.driver.sim.fabric;

import java.util.ArrayList;
import java.util.List;

/** A handler that records what it receives (time, sequence, source, bytes) and releases each frame. */
final class Recorder implements FrameHandler {
    /** What one delivery looked like. */
    record Delivery(long time, long sequence, int srcLid, int dstLid, byte[] bytes) {
        int firstInt() {
            return java.nio.ByteBuffer.wrap(bytes).getInt(0);
        }
    }

    private final Fabric fabric;
    final List<Delivery> deliveries = new ArrayList<>();

    Recorder(Fabric fabric) {
        this.fabric = fabric;
    }

    @Override
    public void onFrame(Frame frame) {
        byte[] bytes = new byte[frame.length()];
        frame.buffer().get(0, bytes);
        deliveries.add(new Delivery(fabric.nanoTime(), frame.sequence(), frame.srcLid(), frame.dstLid(), bytes));
        frame.release();
    }

    int count() {
        return deliveries.size();
    }

    List<Long> times() {
        List<Long> t = new ArrayList<>();
        deliveries.forEach(d -> t.add(d.time()));
        return t;
    }

    List<Integer> firstInts() {
        List<Integer> t = new ArrayList<>();
        deliveries.forEach(d -> t.add(d.firstInt()));
        return t;
    }
}
