package io.rvt.driver.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.Device;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.driver.sim.fabric.Link;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.Verbs;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** RC across short link flaps: retransmission covers the outages, every message arrives once, in order, intact. */
class SimLinkFlapTest {
    @Test
    void shouldDeliverEveryMessageOnceInOrderWhenLinksFlap() {
        long seed = 0xF1A9L;
        try (SimFixture f = new SimFixture(seed, true)) {
            Device[] d = f.open(2);
            Verbs v = new Verbs(f);
            int n = 80;
            int slot = 4096;
            Endpoint[] p = v.connected(d[0], d[1], QpType.RC, n * slot, 7, 1);
            SplittableRandom r = new SplittableRandom(seed);
            SplittableRandom flaps = new SplittableRandom(~seed);
            for (int i = 0; i < n; i++) {
                if (i % 10 == 3) {
                    // A short flap of one side's link, right as the next message goes out.
                    Link link = f.drivers().get(flaps.nextInt(2)).fabricPort(1).link();
                    link.down();
                    link.upAt(f.fabric().nanoTime() + 20_000 + flaps.nextInt(200_000));
                }
                int len = 1 + r.nextInt(slot - 1);
                Verbs.fill(p[0].buffer, i * slot, len, seed + i);
                p[1].qp.postRecv(new RecvWorkRequest(1).wrId(i).sge(p[1].mr, i * slot, slot));
                p[0].qp.postSend(new SendWorkRequest(1).wrId(i).opcode(WrOpcode.SEND).sge(p[0].mr, i * slot, len));
                v.await(p[0].sendCq, 1);
            }
            List<WorkCompletion> got = v.await(p[1].recvCq, n);
            SplittableRandom lengths = new SplittableRandom(seed);
            for (int i = 0; i < n; i++) {
                int len = 1 + lengths.nextInt(slot - 1);
                Verbs.assertSuccess(got.get(i), i);
                assertThat(got.get(i).byteLen()).isEqualTo(len);
                Verbs.assertPattern(p[1].buffer, i * slot, len, seed + i);
            }
            v.assertQuiet(p[1].recvCq, 20);
            assertThat(f.fabric().counters().drops(io.rvt.driver.sim.fabric.DropCause.LINK_DOWN))
                    .as("frames lost to the flaps (seed %d)", seed).isPositive();
        }
    }
}
