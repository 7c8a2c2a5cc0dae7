package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.spi.DriverRegistry;
import io.rvt.api.spi.agent.ThreadingMode;
import io.rvt.driver.sim.SimDriver;
import io.rvt.driver.sim.fabric.Fabric;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code rvt perf HOST --test send -D 4} between a server and a client that are two {@link RemotePerf}s in one JVM
 * (the harness of {@link RemotePerfProtocolTest}): the client measures between perftest's margins and tells the server
 * how many messages its margins held, which the server received as well and waits for.
 */
class RemotePerfMarginsTest {
    private static final String SERVER_IP = "127.0.0.1";
    private static final String CLIENT_IP = "127.0.0.2";

    private static long firstRowIterations(String out) {
        Matcher m = Pattern.compile("(?m)^ 64\\s+(\\d+) ").matcher(out);
        assertThat(m.find()).as(out).isTrue();
        return Long.parseLong(m.group(1));
    }

    @Test
    @Timeout(120)
    void shouldCountTheClientsMarginsInTheServersSendRowWhenTheRowIsTimed() throws Exception {
        try (Fabric fabric = Fabric.builder("margins-" + System.nanoTime()).gidPrefix(0).realTime()
                .threading(ThreadingMode.PROGRESS).build(); DriverRegistry registry = DriverRegistry.create()) {
            SimDriver serverHca = SimDriver.builder(fabric).name("server")
                    .nodeGuid(RemotePerfProtocolTest.guidOf(SERVER_IP) - 1).build();
            SimDriver clientHca = SimDriver.builder(fabric).name("client")
                    .nodeGuid(RemotePerfProtocolTest.guidOf(CLIENT_IP) - 1).build();
            RemotePerfProtocolTest.Side server = new RemotePerfProtocolTest.Side(fabric,
                    registry.register(serverHca));
            RemotePerfProtocolTest.Side client = new RemotePerfProtocolTest.Side(fabric,
                    registry.register(clientHca));
            // -D 4: perftest's margins are the first and last second
            PerfSpec spec = new PerfSpec(PerfTest.SEND, Transport.RC, false, new int[] {64}, 1, 0, 4_000_000_000L,
                    128);
            String[] out = RemotePerfProtocolTest.serverAndClient(server, client, spec);
            String s = out[0];
            String c = out[1];
            Matcher m = Pattern.compile("Not measured    : \\d+ warm-up messages; (\\d+) in the margins \\(the first "
                    + "and last 1 s of each row").matcher(c);
            assertThat(m.find()).as(c).isTrue();
            long margins = Long.parseLong(m.group(1));
            long measured = firstRowIterations(c);
            assertThat(margins).as(c).isPositive();
            assertThat(measured).as(c).isPositive();
            // RC delivers every message: the server received the measured ones and those of the margins, and those
            // the client posted after its last signaled one (fewer than a CQ moderation; they complete unseen)
            assertThat(firstRowIterations(s)).as("the server's row\n%s\nthe client's\n%s", s, c)
                    .isBetween(measured + margins, measured + margins + spec.cqModeration() - 1);
        }
    }
}
