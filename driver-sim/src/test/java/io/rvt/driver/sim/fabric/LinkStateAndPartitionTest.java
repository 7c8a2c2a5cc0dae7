package io.rvt.driver.sim.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LinkStateAndPartitionTest {
    private final Fabric fabric = Fabric.builder(TestSupport.uniqueName("links")).deterministic(3).build();
    private final List<String> events = new ArrayList<>();
    private final Recorder ra = new Recorder(fabric);
    private final Recorder rb = new Recorder(fabric);
    private final Recorder rc = new Recorder(fabric);
    private final FabricPort a = fabric.newPort().handler(ra)
            .linkListener((p, up) -> events.add(p.lid() + (up ? " up@" : " down@") + fabric.nanoTime())).attach();
    private final FabricPort b = fabric.newPort().handler(rb).link(LinkModel.of(0, 1_000)).attach();
    private final FabricPort c = fabric.newPort().handler(rc).attach();

    @AfterEach
    void close() {
        fabric.close();
    }

    private static ByteBuffer bytes() {
        return ByteBuffer.allocate(32);
    }

    @Test
    void shouldDropWhileTheSendersLinkIsDownAndDeliverAgainWhenItIsUp() {
        a.link().down();
        a.send(b.lid(), bytes());
        fabric.runUntilIdle();

        assertThat(rb.count()).isZero();
        assertThat(a.counters().drops(DropCause.LINK_DOWN)).isEqualTo(1);
        assertThat(a.link().isUp()).isFalse();

        a.link().up();
        a.send(b.lid(), bytes());
        fabric.runUntilIdle();

        assertThat(rb.count()).isEqualTo(1);
        assertThat(events).containsExactly("1 down@0", "1 up@0");
    }

    @Test
    void shouldDropFramesInFlightWhenTheReceiversLinkFlapsBeforeTheyArrive() {
        a.send(b.lid(), bytes());          // arrives at 1000 over b's link
        b.link().downAt(400);
        b.link().upAt(600);                // up again before 1000, but the frame was on the link
        a.send(c.lid(), bytes());
        fabric.runUntilIdle();

        assertThat(rb.count()).isZero();
        assertThat(b.counters().drops(DropCause.LINK_DOWN)).isEqualTo(1);
        assertThat(rc.count()).isEqualTo(1);

        a.send(b.lid(), bytes());
        fabric.runUntilIdle();
        assertThat(rb.count()).as("healed link delivers").isEqualTo(1);
        assertThat(fabric.trace().toString()).contains("LINK_DOWN lid=0x2").contains("LINK_UP lid=0x2");
    }

    @Test
    void shouldDropBothWaysWhilePartitionedAndDeliverAfterHeal() {
        Partition p = fabric.partition(List.of(a), List.of(b, c));

        a.send(b.lid(), bytes());
        b.send(a.lid(), bytes());
        c.send(a.lid(), bytes());
        b.send(c.lid(), bytes());          // same side: passes
        fabric.runUntilIdle();

        assertThat(ra.count() + rb.count()).isZero();
        assertThat(rc.count()).isEqualTo(1);
        assertThat(fabric.counters().drops(DropCause.PARTITION)).isEqualTo(3);
        assertThat(p.separates(a, b)).isTrue();
        assertThat(p.separates(b, c)).isFalse();
        assertThat(fabric.partitions()).containsExactly(p);

        p.heal();
        a.send(b.lid(), bytes());
        b.send(a.lid(), bytes());
        fabric.runUntilIdle();

        assertThat(rb.count()).isEqualTo(1);
        assertThat(ra.count()).isEqualTo(1);
        assertThat(p.isActive()).isFalse();
        assertThat(fabric.partitions()).isEmpty();
    }

    @Test
    void shouldDropOnlyOneWayWhenThePartitionIsAsymmetric() {
        fabric.partitionOneWay(List.of(a), List.of(b));

        a.send(b.lid(), bytes());
        b.send(a.lid(), bytes());
        fabric.runUntilIdle();

        assertThat(rb.count()).isZero();
        assertThat(ra.count()).isEqualTo(1);
        assertThat(b.counters().drops(DropCause.PARTITION)).isEqualTo(1);

        fabric.healAll();
        a.send(b.lid(), bytes());
        fabric.runUntilIdle();
        assertThat(rb.count()).isEqualTo(1);
    }

    @Test
    void shouldCutMulticastMembersOffWhenPartitioned() {
        int mlid = 0xC123;
        b.joinMulticast(mlid);
        c.joinMulticast(mlid);
        fabric.partition(List.of(a), List.of(c));

        a.send(mlid, bytes());
        fabric.runUntilIdle();

        assertThat(rb.count()).isEqualTo(1);
        assertThat(rc.count()).isZero();
        assertThat(c.counters().drops(DropCause.PARTITION)).isEqualTo(1);
    }
}
