package io.rvt.cm;

import io.rvt.api.Device;
import io.rvt.api.spi.TimerService;
import java.time.Duration;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * How a {@link ConnectionManager} runs: its clock and timers, the seed of its random numbers (starting PSNs,
 * communication IDs, transaction IDs), and its default CM timing. Immutable; build with {@link #builder()}.
 *
 * <p>Threads and time: the CM has no thread of its own. It reacts to MADs on the completion handler of its GSI
 * receive CQ (the driver's completion executor) and to its timers; by default the timers run on its device's clock
 * ({@link TimerService#of(Device)}: rvt-core's timer agent {@code rvt-DEVICE-timer} on real time), so that a CM's time
 * goes with its device and no thread is rvt-cm's (a listener that blocks there delays the device's own timers:
 * hand long work to a thread of the application's). With a
 * {@link Builder#timerService(TimerService) timer service} of the caller's, e.g. driver-sim's event loop in deterministic
 * mode, the CM runs entirely on that service's time: the same seed then gives the same MADs at the same virtual
 * times. {@link #of(Device)} (what {@link ConnectionManager#of(Device)} and rvt-cm's OSGi component use) takes that
 * clock and seed from the device itself.
 */
public final class CmConfig {
    /** librdmacm's default CM response timeout code ({@code CMA_CM_RESPONSE_TIMEOUT}): 4.096 us x 2^20 = 4.3 s. */
    public static final int DEFAULT_CM_RESPONSE_TIMEOUT = 20;
    /** librdmacm's default Max CM Retries ({@code CMA_MAX_CM_RETRIES}). */
    public static final int DEFAULT_MAX_CM_RETRIES = 15;
    /** The service timeout code of the MRAs the CM sends: 4.096 us x 2^24 = 69 s, as rdma_cm's MRA setting. */
    public static final int DEFAULT_SERVICE_TIMEOUT = 24;
    /**
     * The unanswered connection requests a listener holds by default: 1024, rdma_ucm's {@code net.rdma_ucm.max_backlog}
     * (the bound on {@code rdma_listen}'s backlog). A REQ beyond it is dropped unanswered, as rdma_ucm drops it
     * ({@code ucma_connect_event_handler} fails with ENOMEM and ib_cm does not reject, "to allow future retries"):
     * the peer's retransmission gets in once the application has answered some.
     */
    public static final int DEFAULT_LISTEN_BACKLOG = 1024;
    /**
     * How long the CM holds a request the application has not answered after the peer's last copy of its REQ,
     * whatever the REQ's timeout fields ask (they could ask for 16 x (2^31 + 2^24) x 4.096 us, 39 hours): 73.0 s, the
     * service time the CM's own MRA promises the peer (2^24 x 4.096 us = 68.7 s, {@link #DEFAULT_SERVICE_TIMEOUT})
     * plus one default response timeout (2^20 x 4.096 us = 4.3 s): by then a default peer that still wants the
     * connection has sent its REQ again, and one that got no MRA gave up after 16 x 4.3 s = 68.7 s. The request is
     * then rejected with TIMEOUT.
     */
    public static final Duration DEFAULT_MAX_REQUEST_HOLD = Duration.ofNanos((4096L << DEFAULT_SERVICE_TIMEOUT)
            + (4096L << DEFAULT_CM_RESPONSE_TIMEOUT));

    private static final CmConfig DEFAULTS = builder().build();

    private final TimerService timerService;
    private final long seed;
    private final boolean seeded;
    private final int cmResponseTimeout;
    private final int maxCmRetries;
    private final int serviceTimeout;
    private final int listenBacklog;
    private final Duration maxRequestHold;

    private CmConfig(Builder b) {
        this.timerService = b.timerService;
        this.seed = b.seed;
        this.seeded = b.seeded;
        this.cmResponseTimeout = b.cmResponseTimeout;
        this.maxCmRetries = b.maxCmRetries;
        this.serviceTimeout = b.serviceTimeout;
        this.listenBacklog = b.listenBacklog;
        this.maxRequestHold = b.maxRequestHold;
    }

    /** @return the defaults: real time, a random seed, librdmacm's timing */
    public static CmConfig defaults() {
        return DEFAULTS;
    }

    /**
     * The configuration a device asks for, what {@link ConnectionManager#of(Device)} and rvt-cm's OSGi component use:
     * on a device whose clock replays ({@link TimerService#of(Device)} with a
     * {@link TimerService#replaySeed() replay seed}: driver-sim's deterministic fabric), the CM runs on that clock and
     * seeds its random numbers from the replay seed and the LID of the device's port 1, so that an application's connections
     * replay with the fabric; on real time, {@link #defaults()}.
     *
     * @param device the device
     * @return its configuration (equal for equal devices, so that every {@code of(device)} shares one CM)
     */
    public static CmConfig of(Device device) {
        TimerService timers = TimerService.of(device);
        OptionalLong replay = timers == null ? OptionalLong.empty() : timers.replaySeed();
        if (replay.isEmpty()) {
            return DEFAULTS;
        }
        // the LID of port 1, the device's place on its fabric, keeps two CMs of one fabric apart (their PSNs and
        // communication IDs differ) and is the same in every replay; the node GUID would be too (driver-sim derives
        // it from the fabric's seed and the HCA's name), but it would make the trace depend on the devices' names:
        // RvtFelixIT replays one program with other device names and expects the same trace
        int lid = device.queryPort(1, new io.rvt.api.PortAttr()).lid();
        long seed = replay.getAsLong() * 0x9E37_79B9_7F4A_7C15L ^ lid;
        return builder().timerService(timers).seed(seed).build();
    }

    /** @return a builder with the defaults */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the caller's timer service, or null for the device's ({@link TimerService#of(Device)}) */
    public TimerService timerService() {
        return timerService;
    }

    /** @return true if {@link #seed()} was set; otherwise the CM seeds itself from the system's entropy */
    public boolean isSeeded() {
        return seeded;
    }

    /** @return the seed of the CM's random numbers, if {@link #isSeeded()} */
    public long seed() {
        return seed;
    }

    /** @return the default CM response timeout code (4.096 us x 2^code per try) */
    public int cmResponseTimeout() {
        return cmResponseTimeout;
    }

    /** @return the default Max CM Retries */
    public int maxCmRetries() {
        return maxCmRetries;
    }

    /** @return the service timeout code of the MRAs this CM sends */
    public int serviceTimeout() {
        return serviceTimeout;
    }

    /**
     * @return the connection requests each listener holds unanswered, at most (handed to the application or not);
     *         {@link #DEFAULT_LISTEN_BACKLOG} unless set
     */
    public int listenBacklog() {
        return listenBacklog;
    }

    /**
     * @return how long an unanswered request is held at most after its peer's last copy of it;
     *         {@link #DEFAULT_MAX_REQUEST_HOLD} unless set
     */
    public Duration maxRequestHold() {
        return maxRequestHold;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof CmConfig)) {
            return false;
        }
        CmConfig c = (CmConfig) o;
        return c.timerService == timerService && c.seed == seed && c.seeded == seeded
                && c.cmResponseTimeout == cmResponseTimeout && c.maxCmRetries == maxCmRetries
                && c.serviceTimeout == serviceTimeout && c.listenBacklog == listenBacklog
                && c.maxRequestHold.equals(maxRequestHold);
    }

    @Override
    public int hashCode() {
        return Objects.hash(System.identityHashCode(timerService), seed, seeded, cmResponseTimeout, maxCmRetries,
                serviceTimeout, listenBacklog, maxRequestHold);
    }

    @Override
    public String toString() {
        return "CmConfig[timer=" + (timerService == null ? "device" : timerService) + ", seed="
                + (seeded ? Long.toString(seed) : "random") + ", cmResponseTimeout=" + cmResponseTimeout
                + ", maxCmRetries=" + maxCmRetries + ", serviceTimeout=" + serviceTimeout + ", listenBacklog="
                + listenBacklog + ", maxRequestHold=" + maxRequestHold.toMillis() + " ms]";
    }

    /** Builds a {@link CmConfig}. */
    public static final class Builder {
        private TimerService timerService;
        private long seed;
        private boolean seeded;
        private int cmResponseTimeout = DEFAULT_CM_RESPONSE_TIMEOUT;
        private int maxCmRetries = DEFAULT_MAX_CM_RETRIES;
        private int serviceTimeout = DEFAULT_SERVICE_TIMEOUT;
        private int listenBacklog = DEFAULT_LISTEN_BACKLOG;
        private Duration maxRequestHold = DEFAULT_MAX_REQUEST_HOLD;

        private Builder() {
        }

        /**
         * @param timers the clock and timers the CM runs on (e.g. driver-sim's {@code Fabric.timerService()} in
         *               deterministic mode), or null for the shared real-time timer thread
         * @return this
         */
        public Builder timerService(TimerService timers) {
            this.timerService = timers;
            return this;
        }

        /**
         * @param seed the seed of starting PSNs, communication IDs and transaction IDs (reproducible runs)
         * @return this
         */
        public Builder seed(long seed) {
            this.seed = seed;
            this.seeded = true;
            return this;
        }

        /**
         * @param code the default CM response timeout, 0..31
         * @return this
         */
        public Builder cmResponseTimeout(int code) {
            this.cmResponseTimeout = checkCode("cmResponseTimeout", code);
            return this;
        }

        /**
         * @param retries the default Max CM Retries, 0..15
         * @return this
         */
        public Builder maxCmRetries(int retries) {
            if (retries < 0 || retries > 15) {
                throw new IllegalArgumentException("maxCmRetries must be 0..15, got " + retries);
            }
            this.maxCmRetries = retries;
            return this;
        }

        /**
         * @param code the service timeout of the MRAs this CM sends, 0..31
         * @return this
         */
        public Builder serviceTimeout(int code) {
            this.serviceTimeout = checkCode("serviceTimeout", code);
            return this;
        }

        /**
         * @param backlog the connection requests each listener holds unanswered at most, 1 or more (rdma_listen's
         *                backlog; beyond it a REQ is dropped unanswered)
         * @return this
         * @throws IllegalArgumentException if {@code backlog} is below 1
         */
        public Builder listenBacklog(int backlog) {
            if (backlog < 1) {
                throw new IllegalArgumentException("listenBacklog must be 1 or more, got " + backlog);
            }
            this.listenBacklog = backlog;
            return this;
        }

        /**
         * @param hold how long an unanswered request is held at most after its peer's last copy of it, before it is
         *             rejected with TIMEOUT, whatever the REQ's timeouts ask (positive)
         * @return this
         * @throws IllegalArgumentException if {@code hold} is null, zero or negative
         */
        public Builder maxRequestHold(Duration hold) {
            if (hold == null || hold.isZero() || hold.isNegative()) {
                throw new IllegalArgumentException("maxRequestHold must be positive, got " + hold);
            }
            this.maxRequestHold = hold;
            return this;
        }

        /** @return the configuration */
        public CmConfig build() {
            return new CmConfig(this);
        }

        private static int checkCode(String what, int code) {
            if (code < 0 || code > 31) {
                throw new IllegalArgumentException(what + " must be a 5-bit timeout code 0..31, got " + code);
            }
            return code;
        }
    }
}
