package io.rvt.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BandwidthMeterTest {
    private static final long MS = 1_000_000L;
    private static final long S = 1_000_000_000L;

    /** perftest's peak by its own double loop: every post round's start against every later completion. */
    private static double bruteForce(List<long[]> posts, List<long[]> completions) {
        double best = Double.MAX_VALUE;
        for (long[] p : posts) {
            for (long[] c : completions) {
                if (c[0] > p[0] && c[1] >= p[1]) {
                    best = Math.min(best, (c[1] - p[1]) / (double) (c[0] - p[0]));
                }
            }
        }
        return best;
    }

    @Test
    void shouldFindTheBestStretchFromAPostToALaterCompletionAsPerftestsDoubleLoopDoes() {
        Random rnd = new Random(16);
        for (int run = 0; run < 200; run++) {
            BandwidthMeter m = new BandwidthMeter(2); // grows
            List<long[]> posts = new ArrayList<>();
            List<long[]> completions = new ArrayList<>();
            long t = 1_000;
            m.start(t, 0, 0);
            long posted = 0;
            long done = 0;
            int depth = 1 + rnd.nextInt(300);
            int cqMod = 1 + rnd.nextInt(depth);
            long target = 500 + rnd.nextInt(5000);
            // a stream whose pace changes: slow, fast, stalled, by the run's random choices
            while (done < target) {
                long room = Math.min(depth - (posted - done), target - posted);
                if (room > 0) {
                    t += rnd.nextInt(3);
                    m.posted(posted, t);
                    posts.add(new long[] {posted, t});
                    posted += room;
                }
                t += 1 + rnd.nextInt(rnd.nextInt(10) == 0 ? 20_000 : 2_000);
                long next = Math.min(posted, (done / cqMod + 1 + rnd.nextInt(2)) * cqMod);
                if (next > done) {
                    done = next;
                    m.completed(done, t);
                    completions.add(new long[] {done, t});
                }
            }
            double expected = bruteForce(posts, completions);
            assertEquals(expected, m.bestNanosPerMessage(), expected * 1e-9, "run " + run);
        }
    }

    /**
     * A responder that takes 8 us a message for 100 messages, then 12 us for 100, and so on, fed with 128 in flight
     * and a completion every 100 (perftest's -t 128 -Q 100): one message per 10 us on average.
     *
     * @return the best completion interval's nanoseconds per message (the column before perftest's peak)
     */
    private static double stream(BandwidthMeter m, long durationNanos, long marginNanos, long messages) {
        m.start(0, durationNanos, marginNanos);
        long[] postedAt = new long[(int) messages + 128];
        long posted = 0;
        long done = 0;
        long now = 0;
        long lastCompletion = 0;
        double bestInterval = Double.MAX_VALUE;
        long served = 0; // when the responder finished the last message
        while (done < messages) {
            m.tick(done, now);
            if (posted - done < 128) {
                m.posted(posted, now);
                while (posted < done + 128) {
                    postedAt[(int) posted++] = now;
                }
            }
            // the next 100 messages, each served after its post and after the one before it
            for (long n = done; n < done + 100; n++) {
                served = Math.max(served, postedAt[(int) n]) + ((n / 100) % 2 == 0 ? 8_000 : 12_000);
            }
            now = served;
            m.tick(done, now);
            done += 100;
            m.completed(done, now);
            bestInterval = Math.min(bestInterval, (now - lastCompletion) / 100.0);
            lastCompletion = now;
        }
        return bestInterval;
    }

    @Test
    void shouldReportASteadyStreamsPeakNearItsAverageWhereTheBestCompletionIntervalIsFarAbove() {
        BandwidthMeter m = new BandwidthMeter(130);
        double bestInterval = stream(m, 200 * MS, 50 * MS, 20_000);
        double average = m.elapsedNanos(0) / (double) m.iterations(20_000);
        double peak = m.bestNanosPerMessage();
        assertEquals(8_000, bestInterval, 1e-9); // the old column: one completion interval's best, 125 % of the average
        assertEquals(10_000, average, 10_000 * 0.01);
        assertTrue(peak <= average * 1.001, peak + " vs " + average);
        assertTrue(peak >= average * 0.98, "the peak of an even stream is its average: " + peak + " vs " + average);
    }

    @Test
    void shouldCountTheFirstBatchIntoAnEmptyPipelineInTheRowsPeakAsPerftestDoes() {
        // a row of iterations starts with nothing in flight: its first 100 messages take 100 service times from
        // their post, the best stretch of the row (perftest's peak has the same start)
        BandwidthMeter m = new BandwidthMeter(130);
        stream(m, 0, 0, 20_000);
        assertEquals(8_000, m.bestNanosPerMessage(), 1e-9);
    }

    @Test
    void shouldMeasureATimedRowOnlyBetweenItsMarginsAndCountTheMarginsAside() {
        // -D 10 with 2 s margins: 1 message a ms for 2 s, then 2 a ms; completions every 10 ms
        BandwidthMeter m = new BandwidthMeter(10);
        long start = 5 * S;
        m.start(start, 10 * S, 2 * S);
        long done = 0;
        long last = start;
        for (long t = start; t - start <= 10 * S; t += 10 * MS) {
            m.tick(done, t);
            if (t > start) {
                done += t - start <= 2 * S ? 10 : 20; // what was posted 10 ms ago
                m.completed(done, t);
                last = t;
            }
            m.posted(done, t);
        }
        // measured: the completions polled from 2 s (the tick saw the edge before the poll) to before 8 s
        assertEquals(6 * S, m.elapsedNanos(last));
        assertEquals(10 + 599 * 20, m.iterations(done));
        assertEquals(done - m.iterations(done), m.unmeasured(done));
        assertEquals(199 * 10 + 201 * 20, m.unmeasured(done)); // (0, 2 s) and [8 s, 10 s]
        // the peak looks inside the interval only, where the pace is 2 a ms
        assertEquals(0.5 * MS, m.bestNanosPerMessage(), 0.5 * MS * 0.02);
    }

    @Test
    void shouldMeasureARowOfIterationsFromItsFirstPostToItsLastCompletion() {
        BandwidthMeter m = new BandwidthMeter(4);
        m.start(100, 0, 2 * S);
        m.posted(0, 100);
        m.completed(50, 1_100);
        m.posted(50, 1_100);
        m.completed(100, 2_100);
        assertEquals(100, m.iterations(100));
        assertEquals(2_000, m.elapsedNanos(2_100));
        assertEquals(0, m.unmeasured(100));
        assertEquals(20.0, m.bestNanosPerMessage(), 1e-9);
    }

    @Test
    void shouldTakePerftestsDefaultMarginOfAQuarterOfTheDurationInWholeSeconds() {
        PerfSpec tenSeconds = new PerfSpec(PerfTest.WRITE, Transport.RC, false, new int[] {65536}, 1, 0, 10 * S, 128);
        PerfSpec threeSeconds = new PerfSpec(PerfTest.WRITE, Transport.RC, false, new int[] {65536}, 1, 0, 3 * S, 128);
        PerfSpec iterations = new PerfSpec(PerfTest.WRITE, Transport.RC, false, new int[] {65536}, 1, 5000, 0, 128);
        PerfSpec sweepRow = new PerfSpec(PerfTest.SEND, Transport.RC, false, new int[] {64}, 1, 0, 400 * MS, 128);
        assertEquals(2 * S, tenSeconds.marginNanos());
        assertEquals(0, threeSeconds.marginNanos());
        assertEquals(0, iterations.marginNanos());
        assertEquals(0, sweepRow.marginNanos());
    }
}
