package io.rvt.driver.sim.fabric;

import io.rvt.api.spi.agent.ThreadingMode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class FabricRegistryTest {
    @Test
    @Timeout(10)
    void shouldReturnTheSameInstanceWhenNamedTwice() {
        String name = TestSupport.uniqueName("lab");
        Fabric first = Fabric.named(name);
        try {
            assertThat(Fabric.named(name)).isSameAs(first);
            assertThat(Fabric.find(name)).contains(first);
            assertThat(Fabric.names()).contains(name);
            assertThat(first.mode()).isEqualTo(FabricMode.REAL_TIME);
            assertThat(first.threading()).isEqualTo(ThreadingMode.PROGRESS);
            assertThat(first.thread().getName()).isEqualTo("rvt-sim-fabric-" + name);
        } finally {
            first.close();
        }
        assertThat(Fabric.find(name)).isEmpty();
        assertThat(first.thread().isAlive()).isFalse();
        Fabric again = Fabric.named(name);
        try {
            assertThat(again).isNotSameAs(first);
        } finally {
            again.close();
        }
    }

    @Test
    void shouldRejectASecondFabricWithTheSameName() {
        String name = TestSupport.uniqueName("dup");
        try (Fabric f = Fabric.builder(name).deterministic(1).build()) {
            assertThatThrownBy(() -> Fabric.builder(name).deterministic(1).build())
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("'" + name + "' already exists");
            assertThat(Fabric.named(name)).isSameAs(f);
        }
    }

    @Test
    void shouldKeepTwoFabricsApartWhenTheyUseTheSameLids() {
        try (Fabric one = Fabric.builder(TestSupport.uniqueName("one")).deterministic(1).build();
                Fabric two = Fabric.builder(TestSupport.uniqueName("two")).deterministic(1).build()) {
            Recorder r1 = new Recorder(one);
            Recorder r2 = new Recorder(two);
            FabricPort a1 = one.newPort().lid(1).attach();
            one.newPort().lid(2).handler(r1).attach();
            two.newPort().lid(1).attach();
            two.newPort().lid(2).handler(r2).attach();

            a1.send(2, ByteBuffer.allocate(16));
            one.runUntilIdle();
            two.runUntilIdle();

            assertThat(r1.count()).isEqualTo(1);
            assertThat(r2.count()).isZero();
            assertThat(two.counters().txFrames()).isZero();
            assertThatThrownBy(() -> one.partition(java.util.List.of(a1), two.ports()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not on fabric");
        }
    }

    @Test
    void shouldRefuseNewPortsWhenClosed() {
        Fabric f = Fabric.builder(TestSupport.uniqueName("closed")).deterministic(1).build();
        FabricPort p = f.newPort().attach();
        f.close();

        assertThat(f.isClosed()).isTrue();
        assertThat(p.isClosed()).isTrue();
        assertThatThrownBy(() -> f.newPort().attach()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is closed");
    }
}
