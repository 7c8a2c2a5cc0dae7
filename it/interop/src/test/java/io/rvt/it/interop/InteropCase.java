package io.rvt.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.it.interop.tools.ToolResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One case of the interop matrix: an rvt tool of {@code io.rvt.it.interop.tools} in a child JVM in the peer's
 * namespace (driver-jni on the host end of the TAP, UDP 4791) against the Linux tool in the guest, either side the
 * server. rxe0's {@code hw_counters} are read before and after, and {@link #assertClean} holds the case to what the
 * issue asks: both sides succeed, rxe dropped none of rvt's packets (every one rvt sent is in its {@code rcvd_pkts},
 * no sequence error, gap or RNR), driver-jni none of rxe's (every one rxe sent arrived, no ICRC error, nothing
 * malformed or from a wrong address, no sequence NAK). A retransmission after an ACK timeout is allowed without loss
 * (rxe under TCG on a busy machine may answer late); it is counted in the report. Each case's line goes to
 * {@code target/interop-matrix.md} ({@link #record}).
 *
 * <p>Deadlines are derived from what a case moves ({@link #budget}): rxe under TCG took ~10 ms per 4 KiB RC round trip
 * and a guest command 0.2-1 s on an idle machine; the budget allows 25 times that and a minute and a half besides,
 * for a machine at load 15.
 */
final class InteropCase {
    /** rvt's RC ACK timeout against rxe under TCG: 18, 1.07 s (14, 67 ms, gave up on 1 MiB messages). */
    static final String ACK_TIMEOUT = "18";
    /** Waiting for a guest server to listen. */
    private static final Duration LISTEN = Duration.ofSeconds(120);
    /** A child JVM's exit once its result line is out. */
    private static final Duration EXIT = Duration.ofSeconds(60);
    private static final Path REPORT = Path.of(System.getProperty("rvt.interop.report",
            "target/interop-matrix.md"));
    /** The first case of a run starts the report afresh. */
    private static boolean reportStarted;

    private final LinuxPeer peer;
    private final String tool;
    private final String family;
    private final Duration budget;

    /**
     * @param peer the guest
     * @param tool the Linux tool's name, for messages and the report
     * @param family {@code IPv4} or {@code IPv6}
     * @param budget the whole case's deadline ({@link #budget})
     */
    InteropCase(LinuxPeer peer, String tool, String family, Duration budget) {
        this.peer = peer;
        this.tool = tool;
        this.family = family;
        this.budget = budget;
    }

    /**
     * @param messages messages (or round trips) the case exchanges
     * @param bytes bytes it moves, both ways together
     * @return 90 s, 3 s per message and 250 ms per 4 KiB: 25 times what TCG took idle
     */
    static Duration budget(int messages, long bytes) {
        return Duration.ofSeconds(90).plusSeconds(3L * messages).plusMillis(250 * ((bytes + 4095) / 4096));
    }

    /** @return the guest's address of this case's family */
    InetAddress guest() {
        return family.equals("IPv4") ? peer.guestIpv4() : peer.guestIpv6();
    }

    /** @return the host end's (rvt's) address of this case's family */
    InetAddress host() {
        return family.equals("IPv4") ? peer.hostIpv4() : peer.hostIpv6();
    }

    /**
     * rvt serves, the Linux tool connects: rvt's server starts, says it listens, then the guest's client runs.
     *
     * @param main the rvt tool's class (its {@code main})
     * @param rvtArgs its command line without rvt's common options (added here: {@code --bind}, {@code --timeout},
     *        {@code --ack-timeout})
     * @param guestClient the guest's command
     * @return what both did
     * @throws Exception if the case cannot be run
     */
    Outcome rvtServes(Class<?> main, List<String> rvtArgs, String... guestClient) throws Exception {
        RxeCounters before = RxeCounters.read(peer);
        long start = System.nanoTime();
        try (NamespaceJvm rvt = peer.jvm("rvt-" + tool + "-server", main, args(rvtArgs, false))) {
            rvt.awaitLine(ToolResult.LISTENING, budget);
            GuestResult guest = peer.exec(budget, guestClient);
            String line = rvt.awaitLine(ToolResult.MARKER, budget);
            int exit = rvt.awaitExit(EXIT);
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            return new Outcome("rvt serves", ToolResult.find(line), exit, rvt.outputs(), guest,
                    RxeCounters.read(peer).since(before), took);
        }
    }

    /**
     * The Linux tool serves, rvt connects: the guest's server starts and listens on {@code port}, then rvt's client
     * runs and, once its result is out, holds its HCA until the guest's server has ended (that a late ACK or
     * retransmission of rxe's still finds the HCA).
     *
     * @param port the CM port the guest's server listens on
     * @param main the rvt tool's class
     * @param rvtArgs its command line without rvt's common options
     * @param guestServer the guest's command
     * @return what both did
     * @throws Exception if the case cannot be run
     */
    Outcome rvtConnects(int port, Class<?> main, List<String> rvtArgs, String... guestServer) throws Exception {
        RxeCounters before = RxeCounters.read(peer);
        long start = System.nanoTime();
        try (GuestProcess server = peer.spawn(guestServer)) {
            peer.awaitListener(port, LISTEN);
            try (NamespaceJvm rvt = peer.jvm("rvt-" + tool + "-client", main, args(rvtArgs, true))) {
                String line = rvt.awaitLine(ToolResult.MARKER, budget);
                GuestResult guest = server.await(budget);
                if (guest.timedOut()) {
                    guest = server.kill();
                    guest = new GuestResult(guest.command(), guest.exitCode(), guest.output(), true);
                }
                rvt.send("release");
                int exit = rvt.awaitExit(EXIT);
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                return new Outcome("rvt connects", ToolResult.find(line), exit, rvt.outputs(), guest,
                        RxeCounters.read(peer).since(before), took);
            }
        }
    }

    private String[] args(List<String> rvtArgs, boolean hold) {
        List<String> a = new ArrayList<>(rvtArgs);
        a.addAll(List.of("--bind", host().getHostAddress(), "--timeout", Long.toString(budget.toSeconds()),
                "--ack-timeout", ACK_TIMEOUT));
        if (hold) {
            a.add("--hold");
        }
        return a.toArray(new String[0]);
    }

    /**
     * What one case did.
     *
     * @param direction {@code rvt serves} or {@code rvt connects}
     * @param rvt rvt's result line
     * @param rvtExit rvt's exit code
     * @param rvtOutput rvt's stdout and stderr, for messages
     * @param guest how the Linux tool ended
     * @param rxe how rxe0's counters changed
     * @param took the case's wall time
     */
    record Outcome(String direction, ToolResult rvt, int rvtExit, String rvtOutput, GuestResult guest,
            RxeCounters rxe, Duration took) {
        /** @return everything for a failure's message */
        String describe() {
            return direction + ": " + rvt.format() + "\nrxe0 counters changed: " + rxe.nonZero() + "\nguest '"
                    + guest.command() + "' exit " + guest.exitCode() + (guest.timedOut() ? " (timed out)" : "")
                    + ":\n" + guest.output() + "\n" + rvtOutput;
        }

        /**
         * Both sides succeeded and neither dropped the other's packets.
         *
         * @param loss the loss the case ran under, or null
         */
        void assertClean(Loss loss) {
            String why = describe();
            assertThat(guest.timedOut()).as("the guest's tool timed out; %s", why).isFalse();
            assertThat(guest.exitCode()).as("the guest's tool's exit code; %s", why).isZero();
            assertThat(rvt.ok()).as("rvt's result; %s", why).isTrue();
            assertThat(rvtExit).as("rvt's exit code; %s", why).isZero();
            // driver-jni dropped none of rxe's packets
            assertThat(rvt.number("icrc_errors")).as("rvt's ICRC errors; %s", why).isZero();
            assertThat(rvt.number("rx_malformed")).as("rvt's malformed packets; %s", why).isZero();
            assertThat(rvt.number("rx_addr_mismatch")).as("rvt's packets from a wrong address; %s", why).isZero();
            for (String c : RxeCounters.FAILURES) {
                assertThat(rxe.get(c)).as("rxe0's %s; %s", c, why).isZero();
            }
            if (loss == null) {
                // every packet either sent arrived and passed the other's checks: rxe counts in rcvd_pkts only
                // packets that passed its header and ICRC checks
                assertThat(rxe.get("rcvd_pkts")).as("rxe0's rcvd_pkts against rvt's tx_packets; %s", why)
                        .isEqualTo(rvt.number("tx_packets"));
                assertThat(rvt.number("rx_packets")).as("rvt's rx_packets against rxe0's sent_pkts; %s", why)
                        .isEqualTo(rxe.get("sent_pkts"));
                // driver-jni's backstop, standing in for a poller the machine took off its core inside the engine,
                // hands the QPs later datagrams before the stalled batch's (docs/driver-jni.md): RC recovers as from
                // a reordering network, with a sequence NAK each way at most and the duplicates it causes. Only then
                // may a loss-free case see one (seen once, ucmatose with rvt connecting beside two CPU hogs: rvt
                // seq_naks=1, rxe0 rcvd_seq_err=1 and completer_retry_err=1, rvt rc_dupreq=23, every packet counted)
                boolean reordered = rvt.number("stand_in_cycles") > 0;
                for (String c : RxeCounters.LOSS) {
                    if (reordered && List.of("rcvd_seq_err", "out_of_seq_request").contains(c)) {
                        continue;
                    }
                    assertThat(rxe.get(c)).as("rxe0's %s; %s", c, why).isZero();
                }
                assertThat(rvt.number("rnr_naks")).as("rvt's rnr_naks; %s", why).isZero();
                if (!reordered) {
                    assertThat(rvt.number("seq_naks")).as("rvt's seq_naks without its stand-in; %s", why).isZero();
                }
                // a retransmission without loss only after an ACK timeout, never out of nothing: rvt's own (a slow
                // guest), or rxe's (a slow rvt: a loaded host stalls its process longer than rxe's timer, rxe sends
                // again, and the duplicates' answers can make rvt go back for a READ whose responses they overtook;
                // seen once, rping with rvt serving at load 15-19: rxe0 completer_retry_err=1, rvt rc_resends=1)
                if (rvt.number("rc_resends") > 0 && !reordered) {
                    assertThat(rvt.number("rc_timeouts") + rxe.get("completer_retry_err"))
                            .as("a timeout (rvt's rc_timeouts or rxe0's completer_retry_err) behind rvt's rc_resends;"
                                    + " %s", why)
                            .isPositive();
                }
            } else {
                why = why + "\nthe loss rules dropped (" + loss.dropped() + "): " + loss.drops();
                assertThat(loss.dropped()).as("packets the loss rules dropped; %s", why).isPositive();
                assertThat(rxe.get("rcvd_pkts")).as("rxe0's rcvd_pkts against rvt's tx_packets; %s", why)
                        .isLessThanOrEqualTo(rvt.number("tx_packets"));
                // Only a lost request, READ response or atomic ACK needs an RC retransmission: a lost ACK is
                // covered by the next one and a lost MAD is the CM's to send again (seen: ucmatose with rvt
                // connecting beside two CPU hogs, 2 of rxe's 98 packets lost and nothing resent, all well)
                long resent = rvt.number("rc_resends") + rxe.get("completer_retry_err");
                if (loss.droppedNeedingResend() > 0) {
                    assertThat(resent).as("retransmissions (rvt's rc_resends + rxe0's completer_retry_err) after "
                            + "%d requests, READ responses or atomic ACKs were lost; %s", loss.droppedNeedingResend(),
                            why).isPositive();
                }
            }
        }
    }

    /**
     * Adds the case's line to the matrix report ({@code target/interop-matrix.md}, or
     * {@code -Drvt.interop.report}; started afresh by a run's first case): tool, transport, direction, family,
     * result, the test, its time and counters.
     *
     * @param transport what the tool runs over (e.g. {@code RC}, {@code UD (SIDR)})
     * @param what the case's detail (sizes, counts, loss)
     * @param test the test that holds it
     * @param o its outcome
     * @param ok whether it passed its checks
     */
    void record(String transport, String what, String test, Outcome o, boolean ok) {
        java.util.Map<String, String> f = o.rvt().facts();
        String rvt = "rvt tx " + f.get("tx_packets") + " rx " + f.get("rx_packets") + " resends " + f.get("rc_resends")
                + " timeouts " + f.get("rc_timeouts");
        String line = String.join(" | ", "", tool, transport, o.direction(), family, what, ok ? "pass" : "FAIL",
                test, o.took().toMillis() / 1000.0 + " s", rvt, "rxe " + o.rxe().nonZero(), "").trim() + "\n";
        try {
            Files.createDirectories(REPORT.toAbsolutePath().getParent());
            synchronized (InteropCase.class) {
                if (!reportStarted) {
                    Files.deleteIfExists(REPORT);
                    reportStarted = true;
                }
            }
            if (!Files.exists(REPORT)) {
                Files.writeString(REPORT, "| tool | transport | direction | family | case | result | test | time |"
                        + " rvt | rxe0 hw_counters |\n|---|---|---|---|---|---|---|---|---|---|\n",
                        StandardCharsets.UTF_8);
            }
            Files.writeString(REPORT, line, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + REPORT, e);
        }
        System.out.print(line);
    }

    /**
     * Checks a case and records it, pass or fail.
     *
     * @param o its outcome
     * @param loss the loss it ran under, or null
     * @param transport for the report
     * @param what for the report
     * @param test for the report
     */
    void check(Outcome o, Loss loss, String transport, String what, String test) {
        try {
            o.assertClean(loss);
        } catch (AssertionError e) {
            record(transport, what, test, o, false);
            throw e;
        }
        record(transport, what, test, o, true);
    }
}
