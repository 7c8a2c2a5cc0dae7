package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The measurement loops of {@code rvt perf}: steady state allocates nothing on the measuring thread, also when that
 * thread runs the simulated network ({@code --threading invoker}).
 */
class PerfRunnerTest {
    /**
     * Bytes a measured row may allocate per message: the loops themselves allocate nothing, but the odd allocation
     * below them (a retransmission after a starved network thread, a pool refill) adds up to a few bytes per
     * message over a row; one object per message would be at least 16.
     */
    private static final long BYTES_PER_MESSAGE = 8;
    private static final int ITERS = 5000;

    // No @Timeout: 15 rows of 2 x 5,000 iterations each, a fixed amount of work whose wall time is the machine's load
    // (at load 18-26 it passed 120 s and failed, issue 27); a stuck row fails on its own, PerfRunner waiting for each
    // completion at most Completions.DEADLINE_NANOS (the first 6 times that).
    // Not DEDICATED: a thread each for the fabric and both HCAs beside the measuring one, on two cores at load 50-60
    // its RC retries ran out (RETRY_EXC_ERR); its allocation is the others' code (ThreadingVocabularyTest runs it)
    @ParameterizedTest
    @EnumSource(value = Threading.class, names = "DEDICATED", mode = EnumSource.Mode.EXCLUDE)
    void shouldAllocateNothingPerIterationWhenMeasuring(Threading threading) throws Exception {
        // through reflection: the test compiles inside the launcher's module, which does not read jdk.management
        Object threads = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean")
                .invoke(null);
        Method allocatedBytes = Class.forName("com.sun.management.ThreadMXBean")
                .getMethod("getCurrentThreadAllocatedBytes");
        try (PlainHost host = PlainHost.start(Options.parse().fabric(), threading)) {
            for (PerfTest test : PerfTest.values()) {
                for (int variant = 0; variant < 3; variant++) {
                    boolean latency = variant == 1;
                    int size = test == PerfTest.ATOMIC ? PerfTest.ATOMIC_SIZE : 64;
                    // variant 2: both directions at once, in post lists of 4 (-b -l 4)
                    PerfSpec spec = variant == 2
                            ? new PerfSpec(test, Transport.RC, false, new int[] {size}, 2, ITERS, 0, 128, 4, 4, true)
                            : new PerfSpec(test, Transport.RC, latency, new int[] {size}, 2, ITERS, 0, 128);
                    try (Progress progress = new Progress(System.err, false);
                            PerfRunner runner = new PerfRunner(host, host.devices().get(0), host.devices().get(1),
                                    spec, size, progress)) {
                        measure(runner, spec, size); // first run: class loading, thread-locals, JIT
                        long before = (Long) allocatedBytes.invoke(threads);
                        long messages = measure(runner, spec, size);
                        long allocated = (Long) allocatedBytes.invoke(threads) - before;
                        assertThat(allocated).as("%s %s bytes allocated for %d messages", test, spec.label(),
                                messages).isLessThan(messages * BYTES_PER_MESSAGE);
                    }
                }
            }
        }
    }

    /**
     * With the progress hook one empty poll of the send CQ can land the whole send window at the receiver; the loop
     * must then take in every receive completion, not one batch, or the receive queue runs dry and the requester
     * gets RNR NAKs (each a wait of the RNR timer and a go-back-N resend of the window). The tx depth (128) is below
     * the rx depth (512), so with every completion reposted the receiver can never run out.
     */
    @Test
    @Timeout(120)
    void shouldKeepTheReceiveQueueFromRunningDryWhenThePollsRunTheNetwork() throws Exception {
        try (PlainHost host = PlainHost.start(Options.parse().fabric(), Threading.PROGRESS)) {
            io.rvt.api.Device requester = host.devices().get(0);
            PerfSpec spec = new PerfSpec(PerfTest.SEND, Transport.RC, false, new int[] {64}, 1, 50_000, 0, 128);
            try (Progress progress = new Progress(System.err, false);
                    PerfRunner runner = new PerfRunner(host, requester, host.devices().get(1), spec, 64, progress)) {
                assertThat(runner.bandwidth(64).iterations()).isEqualTo(50_000);
            }
            assertThat(requester.portCounter(1, io.rvt.api.PortCounter.RNR_NAKS)).as("RNR NAKs at the requester")
                    .isZero();
        }
    }

    /** @return the messages measured */
    private static long measure(PerfRunner runner, PerfSpec spec, int size) {
        long n = spec.latency() ? runner.latency(size).iterations() : runner.bandwidth(size).iterations();
        assertThat(n).isEqualTo(spec.latency() ? ITERS : (spec.bidirectional() ? 4L : 2L) * ITERS);
        return n;
    }

    /**
     * The devices of an invoker-mode host whose network runs only until {@link #stop()}: connected through the CM,
     * then a stuck fabric.
     */
    private record Stuck(PlainHost inner, java.util.concurrent.atomic.AtomicBoolean running) implements Host {
        Stuck(PlainHost inner) {
            this(inner, new java.util.concurrent.atomic.AtomicBoolean(true));
        }

        void stop() {
            running.set(false);
        }

        @Override
        public void progress() {
            if (running.get()) {
                inner.progress();
            } else {
                Thread.onSpinWait();
            }
        }

        @Override
        public Threading threading() {
            return inner.threading();
        }

        @Override
        public java.util.List<io.rvt.api.Device> devices() {
            return inner.devices();
        }

        @Override
        public String description() {
            return "a fabric nobody runs";
        }

        @Override
        public DriverKind driver() {
            return DriverKind.SIM;
        }

        @Override
        public void close() {
            inner.close();
        }
    }

    @Test
    @Timeout(60)
    void shouldEndABandwidthRowWithAnErrorWhenNoFirstCompletionComes() throws Exception {
        try (Stuck host = new Stuck(PlainHost.start(Options.parse().fabric(), Threading.INVOKER))) {
            PerfSpec spec = new PerfSpec(PerfTest.WRITE, Transport.RC, false, new int[] {4096}, 1, 1000, 0, 128);
            try (Progress progress = new Progress(System.err, false);
                    PerfRunner runner = new PerfRunner(host, host.devices().get(0), host.devices().get(1), spec, 4096,
                            progress).firstCompletionWait(200_000_000L)) {
                host.stop();
                try {
                    assertThatThrownBy(() -> runner.bandwidth(4096)).isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("no completion on").hasMessageContaining("within 200 ms");
                } finally {
                    host.running().set(true); // the network runs again for the disconnects
                }
            }
        }
    }
}
