package io.rvt.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.ref.WeakReference;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.osgi.framework.Bundle;
import org.osgi.framework.wiring.BundleWiring;

/**
 * The test application (it/app) as a test sees it: its function services in a running {@link Felix}, reached through
 * {@code java.*} types, and the checks every driver's departure in the middle of traffic must pass.
 */
final class App {
    private final Felix felix;
    /** WR_FLUSH_ERR completions seen by {@link #stopStartMidTraffic} so far. */
    long flushedTotal;

    App(Felix felix) {
        this.felix = felix;
    }

    @SuppressWarnings("unchecked")
    private Function<String, String> function(String name) throws Exception {
        return felix.service(Function.class, "(rvt.it.function=" + name + ")");
    }

    /**
     * @return the summary of checked RC traffic between the devices of two drivers (names as {@code rvt.driver})
     * @throws IllegalStateException from the application, saying what failed
     */
    String rcTraffic(String from, String to, int messages) throws Exception {
        return function("rc-traffic").apply(from + " " + to + " " + messages);
    }

    /** @return the running background traffic's report (see it/app's {@code BackgroundTraffic.report()}) */
    @SuppressWarnings("unchecked")
    Map<String, Object> backgroundReport() throws Exception {
        return (Map<String, Object>) felix.service(Callable.class, "(rvt.it.function=background-report)").call();
    }

    /** @return how many completions of that status the report counts */
    @SuppressWarnings("unchecked")
    static long count(Map<String, Object> report, String status) {
        return ((Map<String, Long>) report.getOrDefault("statuses", Map.of())).getOrDefault(status, 0L);
    }

    /** Takes a driver bundle away in the middle of traffic (and perhaps brings it back). */
    @FunctionalInterface
    interface Disruption {
        void apply(Bundle driver) throws Exception;
    }

    /**
     * Starts background RC traffic from the device of driver {@code from} to that of {@code to}, waits until it
     * flows, lets {@code disrupt} take the driver bundle away, and checks what the application saw: the traffic
     * ended without a failure of its own, {@code DEVICE_REMOVAL} for both devices, {@code WR_FLUSH_ERR} for what was
     * still posted, no other error status.
     *
     * @param driver  the bundle whose devices serve the traffic
     * @param disrupt what happens to it
     * @return a weak reference to the class loader of the driver revision that served the traffic
     */
    @SuppressWarnings("unchecked")
    WeakReference<ClassLoader> assertRemovalSeenMidTraffic(Bundle driver, String from, String to, Disruption disrupt)
            throws Exception {
        WeakReference<ClassLoader> loader = new WeakReference<>(driver.adapt(BundleWiring.class).getClassLoader());
        assertThat(function("start-background").apply(from + " " + to)).startsWith("started");
        Poll.until("traffic flowing", () -> count(backgroundReport(), "SUCCESS") >= 200, this::backgroundReport);

        disrupt.apply(driver);

        Poll.until("the application saw the end of its traffic",
                () -> backgroundReport().get("running") == Boolean.FALSE, this::backgroundReport);
        Map<String, Object> report = backgroundReport();
        assertThat(report).as("report").doesNotContainKey("failure");
        assertThat((List<?>) report.get("events")).as("async events")
                .anyMatch(e -> e.toString().startsWith("DEVICE_REMOVAL " + from))
                .anyMatch(e -> e.toString().startsWith("DEVICE_REMOVAL " + to));
        assertThat(count(report, "WR_FLUSH_ERR")).as("flushed completions").isPositive();
        assertThat(((Map<String, ?>) report.get("statuses")).keySet()).as("completion statuses")
                .isSubsetOf("SUCCESS", "WR_FLUSH_ERR");
        return loader;
    }

    /**
     * Starts background RC traffic, waits for {@code successes} successful completions, stops the driver bundle,
     * waits until the application saw the end of its traffic, and starts the bundle again. Exactly-once is the
     * traffic's own check ({@code violations}: a wr_id completed twice, or not accepted, or accepted and never
     * completed); the statuses are SUCCESS and WR_FLUSH_ERR, and {@code alsoAllowed}.
     *
     * @return null if the cycle kept exactly-once, else what went wrong
     */
    @SuppressWarnings("unchecked")
    String stopStartMidTraffic(Bundle driver, String from, String to, long successes, String... alsoAllowed)
            throws Exception {
        String started = function("start-background").apply(from + " " + to);
        if (!started.startsWith("started")) {
            return "traffic did not start: " + started;
        }
        Poll.until("traffic flowing", () -> count(backgroundReport(), "SUCCESS") >= successes,
                this::backgroundReport);
        driver.stop();
        Poll.until("the application saw the end of its traffic",
                () -> backgroundReport().get("running") == Boolean.FALSE, this::backgroundReport);
        driver.start();
        Map<String, Object> report = backgroundReport();
        flushedTotal += count(report, "WR_FLUSH_ERR");
        List<String> violations = (List<String>) report.get("violations");
        if (report.containsKey("failure") || !violations.isEmpty()) {
            return "failure " + report.get("failure") + ", violations " + violations;
        }
        List<String> allowed = new java.util.ArrayList<>(List.of(alsoAllowed));
        allowed.add("SUCCESS");
        allowed.add("WR_FLUSH_ERR");
        if (!allowed.containsAll(((Map<String, ?>) report.get("statuses")).keySet())) {
            return "completion statuses " + report.get("statuses");
        }
        return null;
    }
}
