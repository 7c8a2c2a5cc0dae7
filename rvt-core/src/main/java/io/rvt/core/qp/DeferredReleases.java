package io.rvt.core.qp;

import io.rvt.api.spi.DriverMr;

/**
 * The region references of WQEs completed in one run ({@code SendQueue.beginCompletions} to {@code endCompletions},
 * under {@code sendLock}), counted per region in a row and dropped with one {@link DriverMr#release(int)} per change
 * of region and at the run's end: a stream's ACK retires many WQEs of one buffer with one atomic operation instead of
 * one per SGE. Outside a run nothing is deferred.
 */
final class DeferredReleases {
    private boolean active;
    private DriverMr mr;
    private int count;

    void begin() {
        active = true;
    }

    boolean active() {
        return active;
    }

    /** @param region a completed SGE's region (null for an empty entry: nothing to drop) */
    void add(DriverMr region) {
        if (region == null) {
            return;
        }
        if (region != mr) {
            flush();
            mr = region;
        }
        count++;
    }

    /** Drops what the run deferred and ends it. */
    void end() {
        active = false;
        flush();
    }

    private void flush() {
        if (count > 0) {
            DriverMr m = mr;
            int n = count;
            mr = null;
            count = 0;
            m.release(n);
        }
        mr = null;
    }
}
