package io.rvt.launcher;

import io.rvt.api.QueuePair;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WorkCompletion;

/**
 * One direction of a {@link PerfRunner} bandwidth table: the senders' QPs on one endpoint post their lists of work
 * requests to the QPs of the other, which repost their receives (SEND). Its counters are per sending QP, in work
 * requests. A bidirectional table ({@code -b}) runs two, one each way. Allocates nothing once built.
 */
final class BandwidthFlow {
    /** The table's window ({@link PerfSpec#txDepth()}) and completion moderation. */
    private final PerfSpec spec;
    /** The completions a poll fills; the runner's, shared by its flows. */
    private final WorkCompletion[] wcs;
    private final Endpoint from;
    private final Endpoint to;
    private final QueuePair[] senders;
    private final QueuePair[] receivers;
    private final int[] senderQpns;
    private final int[] receiverQpns;
    /** Per sending QP, its post list as an array (the chain's links, in order). */
    private final SendWorkRequest[][] lists;
    private final RecvWorkRequest[] receives;
    private final long[] posted;
    private final long[] completed;
    private final long[] lastSignaled;
    private final String atSender;
    private final String atReceiver;
    /** The software rate limiter's bursts ({@code --rate_limit}); unlimited unless {@link #pace} says otherwise. */
    private final RateLimit.Pacer pacer = new RateLimit.Pacer();

    /**
     * @param spec the table
     * @param wcs the completions each poll fills
     * @param from the senders' endpoint
     * @param to the receivers' endpoint; null when the receiver is another process
     * @param senders the sending QPs
     * @param receivers the receiving QP of each sender (entries null when {@code to} is)
     * @param heads per sender, the head of its chained post list
     * @param receives per receiver, the receive it reposts
     */
    BandwidthFlow(PerfSpec spec, WorkCompletion[] wcs, Endpoint from, Endpoint to, QueuePair[] senders,
            QueuePair[] receivers, SendWorkRequest[] heads, RecvWorkRequest[] receives) {
        this.spec = spec;
        this.wcs = wcs;
        this.from = from;
        this.to = to;
        this.senders = senders;
        this.receivers = receivers;
        this.receives = receives;
        int qps = senders.length;
        senderQpns = new int[qps];
        receiverQpns = new int[qps];
        lists = new SendWorkRequest[qps][];
        for (int q = 0; q < qps; q++) {
            senderQpns[q] = senders[q].qpNum();
            receiverQpns[q] = receivers[q] == null ? -1 : receivers[q].qpNum();
            int n = 0;
            for (SendWorkRequest wr = heads[q]; wr != null; wr = wr.next()) {
                n++;
            }
            lists[q] = new SendWorkRequest[n];
            SendWorkRequest wr = heads[q];
            for (int i = 0; i < n; i++, wr = wr.next()) {
                lists[q][i] = wr;
            }
        }
        posted = new long[qps];
        completed = new long[qps];
        lastSignaled = new long[qps];
        atSender = "a work request on " + from.device.name();
        atReceiver = to == null ? "" : "a receive on " + to.device.name();
    }

    /** Starts a row: nothing posted or completed, and no rate limit. */
    void reset() {
        for (int q = 0; q < senders.length; q++) {
            posted[q] = 0;
            completed[q] = 0;
            lastSignaled[q] = 0;
        }
        pacer.start(0, 0, 0);
    }

    /**
     * Limits the row's posts to bursts of {@code burstSize}, one every {@code gapNanos} (perftest's software rate
     * limiter), from {@code now}.
     *
     * @param gapNanos the gap between bursts' starts
     * @param burstSize work requests per burst
     * @param now the row's start
     */
    void pace(long gapNanos, int burstSize, long now) {
        pacer.start(gapNanos, burstSize, now);
    }

    /** @return whether the row is rate limited: the sender must come back to {@link #post} though nothing completed */
    boolean paced() {
        return pacer.limited();
    }

    /**
     * Posts lists while the window has room for a whole one (the last list of a row may be shorter).
     *
     * @param target the work requests each QP posts in the row ({@link Long#MAX_VALUE}: until told to stop)
     * @return the work requests posted
     */
    long post(long target) {
        long before = total();
        int cqMod = spec.cqModeration();
        int depth = spec.txDepth();
        long now = pacer.limited() ? System.nanoTime() : 0;
        for (int q = 0; q < senders.length; q++) {
            SendWorkRequest[] list = lists[q];
            if (!pacer.mayPost(now)) {
                continue;
            }
            while (posted[q] < target && pacer.inBurst()) {
                int k = (int) Math.min(list.length, target - posted[q]);
                if (posted[q] + k - completed[q] > depth) {
                    break;
                }
                for (int i = 0; i < k; i++) {
                    long n = posted[q] + 1 + i;
                    boolean signal = n % cqMod == 0 || n == target;
                    list[i].wrId(n).sendFlags(signal ? SendFlag.SIGNALED.bit() : 0);
                    if (signal) {
                        lastSignaled[q] = n;
                    }
                }
                if (k < list.length) {
                    list[k - 1].next(null); // a shorter last list: cut the chain for this post only
                }
                try {
                    senders[q].postSend(list[0]);
                } finally {
                    if (k < list.length) {
                        list[k - 1].next(list[k]);
                    }
                }
                posted[q] += k;
                pacer.posted(k);
            }
        }
        return total() - before;
    }

    private long total() {
        long n = 0;
        for (long p : posted) {
            n += p;
        }
        return n;
    }

    /** @return the work requests that the polled completions account for */
    long pollSends() {
        int n = from.sendCq.pollCq(wcs, wcs.length);
        long done = 0;
        for (int i = 0; i < n; i++) {
            Completions.check(wcs[i], atSender);
            int q = indexOf(senderQpns, wcs[i].qpNum());
            done += wcs[i].wrId() - completed[q];
            completed[q] = wcs[i].wrId();
        }
        return done;
    }

    /**
     * Polls the receive completions a batch at a time until the CQ is empty and posts each receive again, as the
     * receiver would in a process of its own: with the progress hook one empty poll of the send CQ may land the
     * whole window, and reposting one batch per loop let the receive queue run dry (RNR NAKs, each a wait of the
     * RNR timer and a go-back-N resend).
     *
     * @return how many receive completions were polled and their receives posted again
     */
    int repostReceives() {
        if (to == null) {
            return 0; // the receiver is another process, which reposts its own
        }
        int total = 0;
        int n;
        do {
            n = to.recvCq.pollCq(wcs, wcs.length);
            for (int i = 0; i < n; i++) {
                Completions.check(wcs[i], atReceiver);
                int q = indexOf(receiverQpns, wcs[i].qpNum());
                receivers[q].postRecv(receives[q]);
            }
            total += n;
        } while (n == wcs.length);
        return total;
    }

    /**
     * @param posting whether the row still posts
     * @param target the work requests each QP posts in the row
     * @return whether every QP completed its target or, once posting stopped, its last signaled request
     */
    boolean finished(boolean posting, long target) {
        for (int q = 0; q < completed.length; q++) {
            long goal = posting ? target : lastSignaled[q];
            if (completed[q] < goal) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param qpns QP numbers
     * @param qpn one of them
     * @return its index in {@code qpns}
     */
    static int indexOf(int[] qpns, int qpn) {
        for (int i = 0; i < qpns.length; i++) {
            if (qpns[i] == qpn) {
                return i;
            }
        }
        throw new IllegalStateException("completion for unknown QP 0x" + Integer.toHexString(qpn));
    }
}
