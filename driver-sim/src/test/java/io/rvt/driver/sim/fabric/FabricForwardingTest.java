package io.rvt.driver.sim.fabric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.Gid;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class FabricForwardingTest {
    private final Fabric fabric = Fabric.builder(TestSupport.uniqueName("fwd")).deterministic(1).build();

    @AfterEach
    void close() {
        fabric.close();
    }

    private static ByteBuffer payload(int tag, int length) {
        ByteBuffer b = ByteBuffer.allocate(length);
        b.putInt(0, tag);
        return b;
    }

    @Test
    void shouldDeliverToTheDestinationLidOnlyWhenUnicast() {
        Recorder rb = new Recorder(fabric);
        Recorder rc = new Recorder(fabric);
        FabricPort a = fabric.newPort().attach();
        FabricPort b = fabric.newPort().handler(rb).attach();
        fabric.newPort().handler(rc).attach();

        assertThat(a.send(b.lid(), payload(7, 64))).isTrue();
        fabric.runUntilIdle();

        assertThat(rb.count()).isEqualTo(1);
        assertThat(rb.deliveries.get(0).srcLid()).isEqualTo(a.lid());
        assertThat(rb.deliveries.get(0).dstLid()).isEqualTo(b.lid());
        assertThat(rb.deliveries.get(0).firstInt()).isEqualTo(7);
        assertThat(rc.count()).isZero();
        assertThat(a.counters().txFrames()).isEqualTo(1);
        assertThat(a.counters().txBytes()).isEqualTo(64);
        assertThat(b.counters().rxFrames()).isEqualTo(1);
        assertThat(b.counters().rxBytes()).isEqualTo(64);
        assertThat(fabric.counters().totalDrops()).isZero();
    }

    @Test
    void shouldDeliverToEveryMemberButTheSenderWhenMulticast() {
        int mlid = 0xC001;
        Recorder r1 = new Recorder(fabric);
        Recorder r2 = new Recorder(fabric);
        Recorder rSender = new Recorder(fabric);
        Recorder rOutsider = new Recorder(fabric);
        FabricPort sender = fabric.newPort().handler(rSender).attach();
        FabricPort m1 = fabric.newPort().handler(r1).attach();
        FabricPort m2 = fabric.newPort().handler(r2).attach();
        fabric.newPort().handler(rOutsider).attach();
        sender.joinMulticast(mlid);
        m1.joinMulticast(mlid);
        m2.joinMulticast(mlid);

        sender.send(mlid, payload(42, 100));
        fabric.runUntilIdle();

        assertThat(r1.firstInts()).containsExactly(42);
        assertThat(r2.firstInts()).containsExactly(42);
        assertThat(rSender.count()).isZero();
        assertThat(rOutsider.count()).isZero();
        assertThat(r1.deliveries.get(0).sequence()).isNotEqualTo(r2.deliveries.get(0).sequence());
        assertThat(fabric.multicastMembers(mlid)).containsExactly(sender, m1, m2);

        m2.leaveMulticast(mlid);
        sender.send(mlid, payload(43, 100));
        fabric.runUntilIdle();

        assertThat(r1.firstInts()).containsExactly(42, 43);
        assertThat(r2.firstInts()).containsExactly(42);
    }

    @Test
    void shouldDropAndCountWhenTheDestinationIsUnknown() {
        FabricPort a = fabric.newPort().attach();
        fabric.newPort().handler(new Recorder(fabric)).attach();

        a.send(0x0BAD, payload(1, 10));       // no such port
        a.send(0xC0DE, payload(2, 10));       // multicast group without members
        a.send(0xFFFF, payload(3, 10));       // permissive LID: not routed
        a.send(0, payload(4, 10));            // reserved LID
        fabric.runUntilIdle();

        assertThat(fabric.counters().drops(DropCause.UNKNOWN_DESTINATION)).isEqualTo(4);
        assertThat(a.counters().drops(DropCause.UNKNOWN_DESTINATION)).isEqualTo(4);
        assertThat(fabric.counters().rxFrames()).isZero();
        assertThat(a.pool().available()).as("dropped frames return to the sender's pool").isEqualTo(a.pool().frames());
        assertThat(fabric.trace().kind(fabric.trace().size() - 1)).isEqualTo(TraceKind.DROP);
        assertThat(fabric.trace().format(fabric.trace().size() - 1)).contains("cause=UNKNOWN_DESTINATION");
    }

    @Test
    void shouldDropAndCountWhenTheReceiverHasNoHandlerOrIsClosed() {
        FabricPort a = fabric.newPort().attach();
        FabricPort b = fabric.newPort().attach();
        FabricPort c = fabric.newPort().handler(new Recorder(fabric)).link(LinkModel.of(0, 100)).attach();

        a.send(b.lid(), payload(1, 10));
        a.send(c.lid(), payload(2, 10));
        fabric.runFor(50);             // the frame to c is past the switch, on c's link
        c.close();
        a.send(c.lid(), payload(3, 10)); // c's LID is free now
        fabric.runUntilIdle();

        assertThat(b.counters().drops(DropCause.NO_HANDLER)).isEqualTo(1);
        assertThat(c.counters().drops(DropCause.CLOSED)).isEqualTo(1);
        assertThat(a.counters().drops(DropCause.UNKNOWN_DESTINATION)).isEqualTo(1);
        assertThat(fabric.port(c.lid())).isNull();
        assertThat(c.send(a.lid(), payload(3, 10))).as("a closed port sends nothing").isFalse();
    }

    @Test
    void shouldAssignFreeLidsAndDefaultGidsWhenNotRequested() {
        FabricPort a = fabric.newPort().attach();
        FabricPort b = fabric.newPort().lid(0x10).guid(0x1234_5678L).attach();
        FabricPort c = fabric.newPort().attach();

        assertThat(a.lid()).isEqualTo(1);
        assertThat(b.lid()).isEqualTo(0x10);
        assertThat(c.lid()).isEqualTo(2);
        assertThat(b.gid()).isEqualTo(Gid.of(0xFE80_0000_0000_0000L, 0x1234_5678L));
        assertThat(a.gid().subnetPrefix()).isEqualTo(Fabric.DEFAULT_GID_PREFIX);
        assertThat(a.gid().interfaceId()).isEqualTo(a.guid());
        assertThat(fabric.port(b.gid())).contains(b);
        assertThat(fabric.port(0x10)).isSameAs(b);
        assertThat(fabric.ports()).containsExactly(a, c, b);
    }

    @Test
    void shouldRejectATakenLidOrAnInvalidOne() {
        fabric.newPort().lid(5).attach();

        assertThatThrownBy(() -> fabric.newPort().lid(5).attach()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lid=0x5 is taken");
        assertThatThrownBy(() -> fabric.newPort().lid(0xC000)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a unicast LID");
        assertThatThrownBy(() -> fabric.newPort().attach().joinMulticast(0x0100))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a multicast LID");
    }

    @Test
    void shouldReuseALidWhenItsPortIsClosed() {
        FabricPort a = fabric.newPort().lid(9).attach();
        a.close();

        FabricPort b = fabric.newPort().lid(9).attach();

        assertThat(fabric.port(9)).isSameAs(b);
    }

    @Test
    void shouldRefuseFramesTheCallerDoesNotOwn() {
        FabricPort a = fabric.newPort().attach();
        FabricPort b = fabric.newPort().handler(new Recorder(fabric)).attach();
        Frame f = a.acquire().dstLid(b.lid()).length(8);
        assertThat(a.send(f)).isTrue();

        assertThatThrownBy(() -> a.send(f)).isInstanceOf(IllegalStateException.class).hasMessageContaining("not owned");
        assertThatThrownBy(f::release).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> f.length(4)).isInstanceOf(IllegalStateException.class);
        fabric.runUntilIdle();
        assertThat(a.pool().available()).isEqualTo(a.pool().frames());
    }

    @Test
    void shouldPassHandlerExceptionsToTheErrorHandlerAndCountThem() {
        java.util.List<Throwable> errors = new java.util.ArrayList<>();
        try (Fabric f = Fabric.builder(TestSupport.uniqueName("errors")).deterministic(1).errorHandler(errors::add)
                .build()) {
            FabricPort a = f.newPort().attach();
            FabricPort b = f.newPort().handler(frame -> {
                frame.release();
                throw new IllegalStateException("handler bug");
            }).attach();

            a.send(b.lid(), payload(1, 10));
            f.runUntilIdle();

            assertThat(errors).singleElement().satisfies(e -> assertThat(e).hasMessage("handler bug"));
            assertThat(b.counters().handlerErrors()).isEqualTo(1);
        }
    }
}
