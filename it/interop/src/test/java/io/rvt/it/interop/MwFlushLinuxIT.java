package io.rvt.it.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rvt.it.interop.tools.MwFlushClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Memory windows, ATOMIC_WRITE and FLUSH against Linux's rxe (issue 31, item 4), on the trixie variant of the peer
 * (Debian 13, kernel 6.12: rxe has ATOMIC_WRITE and FLUSH since 6.2, which Debian 12's 6.1 lacks), booted once for
 * this class beside the run's default peer. The guest runs {@code mw_flush_peer} (linux-peer/variant/, compiled at
 * image build against rdma-core 56), rvt {@link MwFlushClient} in the namespace, which drives it over TCP and checks
 * every byte of both regions after each step: rxe's type 2 (VA-based and zero-based) and type 1 windows used by rvt
 * and invalidated by rxe (LOCAL_INV, ibv_dealloc_mw), rvt's used by rxe and invalidated by rvt's LOCAL_INV, rxe's
 * SEND_WITH_INV and rvt's deallocMw, each refusal the status libibverbs reports; ATOMIC_WRITE and FLUSH both ways.
 * rxe0's hw_counters against rvt's port counters as in {@link InteropCase}.
 */
@Timeout(value = 60, unit = TimeUnit.MINUTES) // the variant's first image build (~18 min at load 20) and its boot
class MwFlushLinuxIT {
    /** Per case: ~40 guest commands and ~35 packets each way, TCG's 0.2-1 s per command, 25 times over. */
    private static final Duration BUDGET = InteropCase.budget(60, 64 * 1024);
    private static LinuxPeer peer;

    @BeforeAll
    static void boot() throws Exception {
        String missing = LinuxPeer.missingPrerequisite();
        assumeTrue(missing == null, missing);
        peer = LinuxPeer.start("trixie");
    }

    @AfterAll
    static void stop() {
        if (peer != null) {
            peer.close();
        }
    }

    private static InteropCase.Outcome run(String cases) throws Exception {
        String kernel = peer.exec(Duration.ofSeconds(60), "uname", "-r").assertSuccess().trim();
        assertThat(kernel).as("the trixie guest's kernel").startsWith("6.12");
        InteropCase c = new InteropCase(peer, "mw_flush_peer", "IPv4", BUDGET);
        String gid = Integer.toString(peer.gidIndex(peer.guestIpv4()));
        InteropCase.Outcome o = c.rvtConnects(MwFlushClient.PORT, MwFlushClient.class,
                List.of("-c", cases, peer.guestIpv4().getHostAddress()), "mw_flush_peer", "-g", gid, "-u",
                InteropCase.ACK_TIMEOUT);
        c.check(o, null, "RC", cases + " (kernel " + kernel + ")", "MwFlushLinuxIT");
        return o;
    }

    /**
     * Windows both ways: 5 cases after the capability bits, 5 refusals (REM_ACCESS_ERR at rvt for rxe's invalidated
     * and deallocated windows, status 10 at rxe for rvt's), every byte of both regions checked after each step.
     */
    @Test
    void shouldUseWindowsEachSideBindsAndRefuseThemOnceInvalidated() throws Exception {
        InteropCase.Outcome o = run("windows");
        assertThat(o.rvt().number("cases")).as(o.describe()).isEqualTo(6);
        assertThat(o.rvt().number("refusals")).as(o.describe()).isEqualTo(5);
        assertThat(o.rvt().number("bytes_checked")).as(o.describe()).isGreaterThan(40_000);
    }

    /**
     * An access through a window past the window's range but inside its region (IBTA C10-75 checks the window's
     * bounds): rxe (6.12) serves rvt's READ, WRITE and FETCH_AND_ADD past its type 2 window, with the region's bytes;
     * rvt refuses rxe's READ, WRITE and FETCH_AND_ADD past its type 1 window, each completing at rxe with
     * {@code IBV_WC_REM_ACCESS_ERR} (10), rvt's region unchanged. docs/interop.md: rxe deviates, rvt keeps the check.
     */
    @Test
    void shouldBeServedPastRxesWindowAndRefuseAccessesPastRvts() throws Exception {
        InteropCase.Outcome o = run("bounds");
        assertThat(o.rvt().number("cases")).as(o.describe()).isEqualTo(3);
        assertThat(o.rvt().number("served_past_window")).as("rxe serves rvt's accesses past its window: "
                + o.describe()).isEqualTo(3);
        assertThat(o.rvt().number("refusals")).as(o.describe()).isEqualTo(3);
        assertThat(o.rvt().number("bytes_checked")).as(o.describe()).isGreaterThan(16_000);
    }

    /**
     * ATOMIC_WRITE and FLUSH (range and region) from rxe to rvt and from rvt to rxe, the 8 bytes checked in place;
     * FLUSH to persistence through a QP without FLUSH_PERSISTENT refused as invalid request by either side.
     */
    @Test
    void shouldExchangeAtomicWriteAndFlushBothWays() throws Exception {
        InteropCase.Outcome o = run("flush");
        assertThat(o.rvt().number("cases")).as(o.describe()).isEqualTo(3);
        assertThat(o.rvt().number("refusals")).as(o.describe()).isEqualTo(2);
        assertThat(o.rvt().number("bytes_checked")).as(o.describe()).isGreaterThan(8_000);
    }
}
