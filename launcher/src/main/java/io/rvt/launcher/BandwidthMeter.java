package io.rvt.launcher;

/**
 * perftest's arithmetic for one bandwidth row ({@code run_iter_bw} and {@code print_report_bw} in perftest's
 * {@code perftest_resources.c}), fed by the row's loop with its post rounds and completion polls.
 *
 * <ul>
 * <li><b>BW peak</b> is perftest's: the best rate over any stretch from a post to a later completion, i.e. the least
 * of {@code (tcompleted[j] - tposted[i]) / (j - i + 1)} over the work requests {@code i} posted and the completions
 * {@code j} polled after them. A stretch includes the time its first message spends in flight, so the peak is that of
 * the row's fastest sustained part, not of one burst: a steady stream's peak is close to its average. perftest keeps
 * a time stamp per work request and measures no peak with {@code -D} or above 20,000 iterations; rvt keeps the upper
 * convex hull of the post times (the only candidates for the least slope to a later completion), so it measures the
 * peak of every row, in memory that stays small (a stream at an even pace keeps a few points). Its {@code i} are the
 * first work request of each post round (perftest's: every post call); a round posts what one turn of the loop finds
 * room for, and over the stretches where the peak lies (thousands of messages) the two differ by a round's share.</li>
 * <li><b>BW average</b> with {@code -n} is perftest's too: all messages over the time from the first post to the last
 * completion. With {@code -D} it is over perftest's sample interval: the row runs its whole duration, but only the
 * completions polled after the first margin and before the last count, over the time between those two instants
 * (perftest's {@code START_STATE}, {@code SAMPLE_STATE}, {@code STOP_SAMPLE_STATE}; its default margin is a quarter
 * of the duration, in whole seconds, {@link PerfSpec#marginNanos()}). The peak then looks only inside that interval
 * as well. The messages of the margins are counted ({@link #unmeasured()}) and printed under the table.</li>
 * </ul>
 *
 * Not thread-safe; one per runner, reused for every row ({@link #start}). Allocates nothing once its arrays have
 * grown to the row's needs.
 */
final class BandwidthMeter {
    /** Post rounds whose first message has not completed yet: not yet candidates for a stretch's start. */
    private long[] pendingIndex;
    private long[] pendingNanos;
    private int pendingHead;
    private int pendingSize;
    /** The upper convex hull of the candidate starts: x = messages posted before, y = the post time, from the origin. */
    private double[] hullX = new double[256];
    private double[] hullY = new double[256];
    private int hullSize;

    private long origin;
    private long sampleFrom;
    private long sampleTo;
    /** 0: before the sample interval, 1: in it, 2: after it. */
    private int state;
    private boolean timed;
    private long sampleStartNanos;
    private long sampleEndNanos;
    private long doneAtSampleStart;
    private long doneAtSampleEnd;
    private double bestNanosPerMessage;

    /**
     * @param outstandingRounds the most post rounds whose first message may be in flight at once (the work requests
     *        the row may have in flight, plus one); grows if exceeded
     */
    BandwidthMeter(int outstandingRounds) {
        int n = Math.max(2, outstandingRounds);
        pendingIndex = new long[n];
        pendingNanos = new long[n];
    }

    /**
     * Starts a row.
     *
     * @param now the time of its start, before its first post
     * @param durationNanos how long it runs ({@code -D}), or 0 for a row of a given number of iterations
     * @param marginNanos with a duration: how long at each end is not measured
     */
    void start(long now, long durationNanos, long marginNanos) {
        origin = now;
        timed = durationNanos > 0;
        long margin = timed ? Math.max(0, Math.min(marginNanos, (durationNanos - 1) / 2)) : 0;
        sampleFrom = now + margin;
        sampleTo = timed ? now + durationNanos - margin : Long.MAX_VALUE;
        state = margin == 0 ? 1 : 0;
        sampleStartNanos = now;
        sampleEndNanos = now;
        doneAtSampleStart = 0;
        doneAtSampleEnd = 0;
        pendingHead = 0;
        pendingSize = 0;
        hullSize = 0;
        bestNanosPerMessage = Double.MAX_VALUE;
    }

    /**
     * Moves between the margins and the sample interval when the clock has passed their edges.
     *
     * @param done messages completed so far (before the completions polled at {@code now}, if any)
     * @param now the time read
     */
    void tick(long done, long now) {
        if (state == 0 && now - sampleFrom >= 0) {
            state = 1;
            sampleStartNanos = now;
            doneAtSampleStart = done;
            hullSize = 0; // stretches start inside the sample interval
            pendingSize = 0;
        }
        if (state == 1 && now - sampleTo >= 0) {
            state = 2;
            sampleEndNanos = now;
            doneAtSampleEnd = done;
        }
    }

    /**
     * A post round.
     *
     * @param postedBefore messages posted in the row before the round (its first message's index)
     * @param nanos the time read just before the round's first post
     */
    void posted(long postedBefore, long nanos) {
        if (state != 1) {
            return;
        }
        if (pendingSize == pendingIndex.length) {
            growPending();
        }
        int slot = (pendingHead + pendingSize) % pendingIndex.length;
        pendingIndex[slot] = postedBefore;
        pendingNanos[slot] = nanos;
        pendingSize++;
    }

    /**
     * A poll that found completions.
     *
     * @param done messages completed so far, these included
     * @param nanos when they were polled
     */
    void completed(long done, long nanos) {
        if (state != 1) {
            return;
        }
        while (pendingSize > 0 && pendingIndex[pendingHead] < done) {
            addToHull(pendingIndex[pendingHead], pendingNanos[pendingHead] - origin);
            pendingHead = (pendingHead + 1) % pendingIndex.length;
            pendingSize--;
        }
        if (hullSize == 0) {
            return;
        }
        double qx = done;
        double qy = nanos - origin;
        // the slope from the hull's points to the query falls, then rises: find its least by bisection
        int lo = 0;
        int hi = hullSize - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (slope(mid, qx, qy) > slope(mid + 1, qx, qy)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        double best = slope(lo, qx, qy);
        if (best < bestNanosPerMessage) {
            bestNanosPerMessage = best;
        }
    }

    /** @return nanoseconds per message from hull point {@code k} to the query */
    private double slope(int k, double qx, double qy) {
        return (qy - hullY[k]) / (qx - hullX[k]);
    }

    private void addToHull(double x, double y) {
        // keep only the points on the upper hull: one under the segment from its predecessor to the new point goes
        while (hullSize >= 2) {
            double ox = hullX[hullSize - 2];
            double oy = hullY[hullSize - 2];
            double ax = hullX[hullSize - 1];
            double ay = hullY[hullSize - 1];
            if ((ax - ox) * (y - oy) - (ay - oy) * (x - ox) >= 0) {
                hullSize--;
            } else {
                break;
            }
        }
        if (hullSize == hullX.length) {
            hullX = java.util.Arrays.copyOf(hullX, hullSize * 2);
            hullY = java.util.Arrays.copyOf(hullY, hullSize * 2);
        }
        hullX[hullSize] = x;
        hullY[hullSize] = y;
        hullSize++;
    }

    private void growPending() {
        int n = pendingIndex.length;
        long[] index = new long[n * 2];
        long[] nanos = new long[n * 2];
        for (int i = 0; i < n; i++) {
            index[i] = pendingIndex[(pendingHead + i) % n];
            nanos[i] = pendingNanos[(pendingHead + i) % n];
        }
        pendingIndex = index;
        pendingNanos = nanos;
        pendingHead = 0;
    }

    /**
     * @param done messages completed in the row
     * @return the messages measured
     */
    long iterations(long done) {
        if (!timed) {
            return done;
        }
        return (state == 2 ? doneAtSampleEnd : done) - doneAtSampleStart;
    }

    /**
     * @param lastCompletionNanos when the row's last completion was polled
     * @return the time its messages were measured over: first post to last completion, or the sample interval
     */
    long elapsedNanos(long lastCompletionNanos) {
        if (!timed) {
            return lastCompletionNanos - origin;
        }
        return (state == 2 ? sampleEndNanos : lastCompletionNanos) - sampleStartNanos;
    }

    /**
     * @param done messages completed in the row
     * @return the messages completed in the margins, not measured
     */
    long unmeasured(long done) {
        return done - iterations(done);
    }

    /** @return the least nanoseconds per message over a stretch from a post to a later completion, or 0 if none */
    double bestNanosPerMessage() {
        return bestNanosPerMessage == Double.MAX_VALUE ? 0 : bestNanosPerMessage;
    }
}
