package io.rvt.cm;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.cm.impl.CmRegistry;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The CM under lost and duplicated MADs, over many cycles, and its reproducibility. */
class CmFaultTest {
    /** A connection's life: connect, one message, disconnect from the client, both closed. */
    private static void cycle(SimLab lab, SimLab.Host server, SimLab.Host client, int port, long maxVirtualNanos) {
        long start = lab.fabric.nanoTime();
        Connection c = client.cm.connectAsync(new ConnectOptions().destination(server.gid()).port(port)
                .qp(client.qp()));
        lab.await("client established", c.established());
        assertThat(lab.fabric.nanoTime() - start).as("virtual time to connect (seed %d)", lab.seed)
                .isLessThan(maxVirtualNanos);
        c.qp().postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.SEND).sge(client.mr, 0, 8));
        WorkCompletion sent = lab.poll(client.cq);
        assertThat(sent.status()).isEqualTo(WcStatus.SUCCESS);
        WorkCompletion got = lab.poll(server.cq);
        assertThat(got.status()).isEqualTo(WcStatus.SUCCESS);
        c.close();
        lab.await("client disconnected", c.disconnected());
    }

    private static List<Connection> acceptAll(SimLab lab, SimLab.Host server, int port) {
        List<Connection> accepted = new ArrayList<>();
        server.cm.listen(port, req -> {
            Connection s = req.acceptAsync(server.qp(), null);
            s.qp().postRecv(new RecvWorkRequest(1).wrId(2).sge(server.mr, 0, 64));
            s.disconnected().thenRun(s::close);
            accepted.add(s);
        });
        return accepted;
    }

    private static int totalRetries;

    @org.junit.jupiter.api.AfterAll
    static void someConnectsNeededRetries() {
        assertThat(totalRetries).as("REQs resent over the lossy runs").isPositive();
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
    void shouldConnectInBoundedVirtualTimeWhenAFifthOfTheMadsAreLostOrDuplicated(long seed) {
        try (SimLab lab = new SimLab(seed)) {
            SimLab.Host server = lab.host();
            SimLab.Host client = lab.host();
            acceptAll(lab, server, 18515);
            int[] retried = new int[1];
            client.cm.addEventListener(e -> {
                if (e.type() == CmEventType.REQUEST_SENT && e.attempt() > 1) {
                    retried[0]++;
                }
            });
            lab.loss(0.2, 0.2);
            for (int i = 0; i < 5; i++) {
                // 268 ms per try and 15 retries: a connect that needs more than 12 tries is a bug at 20 % loss
                cycle(lab, server, client, 18515, 12 * (4096L << 16));
            }
            lab.loss(0, 0);
            assertThat(lab.fabric.counters().totalDrops()).as("frames lost").isPositive();
            assertThat(lab.fabric.counters().duplicated()).as("frames duplicated").isPositive();
            totalRetries += retried[0];
            lab.runUntil("every ID out of timewait",
                    () -> client.cm.idCount() == 0 && server.cm.idCount() == 1);
        }
    }

    @Test
    void shouldLeakNoQpIdOrThreadOverAThousandConnectDisconnectCycles() {
        int threadsBefore = cmThreads();
        try (SimLab lab = new SimLab(77)) {
            SimLab.Host server = lab.host();
            SimLab.Host client = lab.host();
            int serverQps = lab.qpCount(server);
            int clientQps = lab.qpCount(client);
            List<Connection> accepted = acceptAll(lab, server, 1);
            for (int i = 0; i < 1000; i++) {
                cycle(lab, server, client, 1, Long.MAX_VALUE);
            }
            lab.runUntil("every ID out of timewait", () -> client.cm.idCount() == 0 && server.cm.idCount() == 1);
            lab.runUntil("the server closed its side", () -> lab.qpCount(server) == serverQps);
            assertThat(accepted).hasSize(1000);
            assertThat(lab.qpCount(client)).isEqualTo(clientQps);
            assertThat(cmThreads()).isEqualTo(threadsBefore);
        }
        assertThat(CmRegistry.engineCount()).isZero();
    }

    private static int cmThreads() {
        int n = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("rvt-cm")) {
                n++;
            }
        }
        return n;
    }

    /** Runs connects, a rejection and disconnects under faults; returns the event trace and the fabric's. */
    private static List<String> scenario(long seed) {
        List<String> trace = new ArrayList<>();
        try (SimLab lab = new SimLab(seed)) {
            SimLab.Host server = lab.host();
            SimLab.Host client = lab.host();
            server.cm.addEventListener(e -> trace.add("S " + e.timeNanos() + " " + e));
            client.cm.addEventListener(e -> trace.add("C " + e.timeNanos() + " " + e));
            acceptAll(lab, server, 2);
            lab.loss(0.2, 0.1);
            for (int i = 0; i < 3; i++) {
                cycle(lab, server, client, 2, Long.MAX_VALUE);
            }
            Connection refused = client.cm.connectAsync(new ConnectOptions().destination(server.gid()).port(3)
                    .qp(client.qp()));
            lab.runUntil("refused", () -> refused.established().isDone());
            refused.close();
            lab.runUntil("quiet", () -> client.cm.idCount() == 0 && server.cm.idCount() == 1);
            trace.add("fabric " + lab.fabric.traceHash());
        }
        return trace;
    }

    @Test
    void shouldGiveTheSameTraceWhenTheSeedIsTheSame() {
        List<String> first = scenario(4242);
        List<String> second = scenario(4242);
        for (int i = 0; i < Math.min(first.size(), second.size()); i++) {
            assertThat(second.get(i)).as("trace line %d of %d", i, first.size()).isEqualTo(first.get(i));
        }
        assertThat(second).isEqualTo(first);
        assertThat(first).anyMatch(s -> s.contains("REJECTED")).anyMatch(s -> s.contains("TIMEWAIT_EXIT"));
        assertThat(scenario(4243)).isNotEqualTo(first);
    }
}
