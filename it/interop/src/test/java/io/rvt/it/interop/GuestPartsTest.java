package io.rvt.it.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.testkit.Shell;
import java.net.Inet4Address;
import java.net.Inet6Address;
import org.junit.jupiter.api.Test;

/** The Linux peer harness's parts that need no guest: GID lines, the agent's quoting, bad loss rates. */
class GuestPartsTest {
    @Test
    void shouldParseSysfsGidLinesIpv4MappedAsIpv4() {
        GuestGid v4 = GuestGid.parse("1 0000:0000:0000:0000:0000:ffff:c000:0202 RoCE v2");
        assertThat(v4.index()).isEqualTo(1);
        assertThat(v4.address()).isInstanceOf(Inet4Address.class);
        assertThat(v4.address().getHostAddress()).isEqualTo("192.0.2.2");
        assertThat(v4.isRoceV2()).isTrue();
        GuestGid v6 = GuestGid.parse("2 2001:0db8:0000:0000:0000:0000:0000:0002 IB/RoCE v1");
        assertThat(v6.address()).isInstanceOf(Inet6Address.class);
        assertThat(v6.address().getHostAddress()).isEqualTo("2001:db8:0:0:0:0:0:2");
        assertThat(v6.isRoceV2()).isFalse();
    }

    @Test
    void shouldRefuseALineThatIsNoGidNamingIt() {
        assertThatThrownBy(() -> GuestGid.parse("1 fe80::1 RoCE v2")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'1 fe80::1 RoCE v2'");
        assertThatThrownBy(() -> GuestGid.parse("x 0000:0000:0000:0000:0000:ffff:c000:0202 RoCE v2"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a GID table line");
    }

    /** What the guest's bash gets is each argument exactly as given: spaces, quotes, $, globs, backslashes. */
    @Test
    void shouldQuoteEveryArgumentSoBashSeesItVerbatim() {
        String[] args = {"a b", "it's", "$HOME", "*", "\\n", "\"", "", "; echo no"};
        StringBuilder script = new StringBuilder("printf '<%s>'");
        StringBuilder want = new StringBuilder();
        for (String a : args) {
            script.append(' ').append(GuestAgent.quote(a));
            want.append('<').append(a).append('>');
        }
        assertThat(Shell.run("bash", "-c", script.toString())).isEqualTo(want.toString());
    }

    /**
     * A second close (a test's try-with-resources, then the peer's) returns at once: before, it signalled a command
     * whose files were gone and polled the agent for 10 s, about 7 minutes of a matrix run.
     */
    @Test
    void shouldCloseAGuestProcessOnceOnly(@org.junit.jupiter.api.io.TempDir java.nio.file.Path share)
            throws Exception {
        java.util.concurrent.atomic.AtomicInteger polls = new java.util.concurrent.atomic.AtomicInteger();
        GuestAgent agent = new GuestAgent(share, () -> polls.incrementAndGet() > 0);
        String id = agent.submit("true");
        java.nio.file.Files.writeString(share.resolve(id + ".rc"), "0\n"); // as the guest's agent writes it
        GuestProcess p = new GuestProcess(agent, id, "true");
        p.close();
        assertThat(share).isEmptyDirectory();
        long start = System.nanoTime();
        p.close();
        assertThat(polls).hasValue(0);
        assertThat(share).isEmptyDirectory();
        assertThat(java.time.Duration.ofNanos(System.nanoTime() - start)).isLessThan(java.time.Duration.ofSeconds(1));
    }

    @Test
    void shouldRefuseALossRateOutsideOneToAHundredBeforeTouchingNftables() {
        for (int bad : new int[] {0, -1, 101}) {
            assertThatThrownBy(() -> Loss.add("no-such-netns", "tap0", bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("loss percent must be 1..100, got " + bad);
        }
    }
}
