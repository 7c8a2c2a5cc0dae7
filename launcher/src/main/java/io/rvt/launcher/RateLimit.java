package io.rvt.launcher;

/**
 * perftest's software rate limiter ({@code --rate_limit}, {@code --rate_units}, {@code --burst_size},
 * {@code --rate_limit_type SW}; {@code run_iter_bw} in perftest_resources.c): the rate becomes packets per second at
 * the row's size, the sender posts bursts of {@code burstSize} work requests, and each burst starts one gap
 * ({@code burstSize} over that rate) after the last one's start, the deadlines adding up from the row's start so
 * that a late burst does not lower the rate. rvt's HCAs have no hardware limiter: {@code HW} and {@code PP} are
 * refused, and {@code --rate_limit} alone, which perftest tries in hardware first and, where the QP does not take
 * the static rate (RoCE), falls back to software, is software here.
 *
 * @param rate the limit, in {@code units}
 * @param units {@code M} (MB/sec, 2^20 bytes), {@code g} (Gb/sec, 10^9 bits) or {@code p} (packets per second)
 * @param burstSize work requests per burst (perftest's default: the TX depth)
 */
record RateLimit(double rate, char units, int burstSize) {
    /**
     * @param size the row's message size
     * @return the packets per second the rate allows at that size, whole as perftest's {@code rate_limit_pps}
     */
    long packetsPerSecond(int size) {
        double pps = switch (units) {
            case 'M' -> rate / size * 1048576;
            case 'g' -> rate / (size * 8.0) * 1e9;
            default -> rate;
        };
        return (long) pps;
    }

    /**
     * @param size the row's message size
     * @return nanoseconds from one burst's start to the next's
     * @throws UsageException if the rate is under one packet per second at that size
     */
    long gapNanos(int size) {
        long pps = packetsPerSecond(size);
        if (pps <= 0) {
            throw new UsageException("option --rate_limit: " + plain(rate) + " " + unitName() + " is less than one "
                    + size + "-byte message per second");
        }
        return (long) (1e9 * burstSize / pps);
    }

    /** @return the unit's name, as help and errors say it */
    String unitName() {
        return switch (units) {
            case 'M' -> "MB/sec";
            case 'g' -> "Gb/sec";
            default -> "packets/sec";
        };
    }

    private static String plain(double v) {
        return java.math.BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
    }

    /**
     * One sender's bursts in one row: whether it may post now, and how much of the burst is left. Allocates nothing.
     */
    static final class Pacer {
        private long gapNanos;
        private int burstSize;
        private long deadline;
        private boolean inBurst;
        private int burstIter;

        /**
         * Starts a row: the first burst may go at once.
         *
         * @param gapNanos the gap between bursts' starts; 0 for no limit
         * @param burstSize work requests per burst
         * @param now the row's start
         */
        void start(long gapNanos, int burstSize, long now) {
            this.gapNanos = gapNanos;
            this.burstSize = burstSize;
            this.deadline = now;
            this.inBurst = false;
            this.burstIter = 0;
        }

        /** @return whether the row is limited */
        boolean limited() {
            return gapNanos > 0;
        }

        /**
         * Before a QP's posts (perftest's check at the top of its per-QP loop): a burst under way goes on; else one
         * starts if its deadline has come.
         *
         * @param now the time
         * @return whether the QP may post
         */
        boolean mayPost(long now) {
            if (gapNanos <= 0 || inBurst) {
                return true;
            }
            if (now - deadline < 0) {
                return false;
            }
            deadline += gapNanos;
            inBurst = true;
            burstIter = 0;
            return true;
        }

        /** @return whether a burst is under way (or the row is not limited): another list may be posted */
        boolean inBurst() {
            return gapNanos <= 0 || inBurst;
        }

        /** @param k work requests just posted */
        void posted(int k) {
            if (gapNanos <= 0) {
                return;
            }
            burstIter += k;
            if (burstIter >= burstSize) {
                inBurst = false;
            }
        }
    }
}
