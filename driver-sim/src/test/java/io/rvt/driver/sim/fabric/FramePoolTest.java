package io.rvt.driver.sim.fabric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class FramePoolTest {
    @Test
    void shouldReturnNullAndCountWhenExhausted() {
        FramePool pool = FramePool.heap(3, 100, 28);
        Frame a = pool.acquire();
        pool.acquire();
        pool.acquire();

        assertThat(pool.acquire()).isNull();
        assertThat(pool.exhaustedCount()).isEqualTo(1);
        assertThat(pool.available()).isZero();
        a.release();
        assertThat(pool.available()).isEqualTo(1);
        assertThat(pool.acquire()).isSameAs(a);
        assertThat(a.capacity()).isEqualTo(128);
    }

    @Test
    void shouldThrowWhenReleasedTwice() {
        FramePool pool = FramePool.heap(1, 64, 0);
        Frame f = pool.acquire();
        f.release();

        assertThatThrownBy(f::release).isInstanceOf(IllegalStateException.class).hasMessageContaining("state=free");
    }

    @Test
    void shouldResetHeaderFieldsWhenAcquiredAgain() {
        FramePool pool = FramePool.heap(1, 64, 0);
        Frame f = pool.acquire().length(10).dstLid(0x22);
        f.buffer().position(5);
        f.release();

        Frame g = pool.acquire();

        assertThat(g.length()).isZero();
        assertThat(g.dstLid()).isZero();
        assertThat(g.buffer().position()).isZero();
        assertThat(g.buffer().limit()).isEqualTo(64);
    }

    @Test
    void shouldGiveIndependentSlicesWhenDirect() {
        FramePool pool = FramePool.direct(2, 60, 4);
        Frame a = pool.acquire();
        Frame b = pool.acquire();
        a.buffer().putLong(0, -1L);

        assertThat(pool.isDirect()).isTrue();
        assertThat(a.buffer().isDirect()).isTrue();
        assertThat(a.capacity()).isEqualTo(64);
        assertThat(b.buffer().getLong(0)).isZero();
        assertThat(b.buffer().getLong(56)).isZero();
    }

    @Test
    void shouldValidateLengthsAndLids() {
        Frame f = FramePool.heap(1, 16, 0).acquire();

        assertThatThrownBy(() -> f.length(17)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("length=17");
        assertThatThrownBy(() -> f.dstLid(0x10000)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> f.put(ByteBuffer.allocate(17))).isInstanceOf(IllegalArgumentException.class);
        ByteBuffer src = ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5}).position(2);
        assertThat(f.put(src).length()).isEqualTo(3);
        assertThat(f.buffer().get(0)).isEqualTo((byte) 3);
        assertThat(src.position()).as("source position untouched").isEqualTo(2);
    }

    @Test
    void shouldRejectAPortPoolLargerThanTheFabricsMaxFrameSize() {
        try (Fabric f = Fabric.builder(TestSupport.uniqueName("pool-size")).deterministic(1).maxFrameSize(1024)
                .build()) {
            assertThatThrownBy(() -> f.newPort().pool(4, 1024, 64, false).attach())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxFrameSize=1024");
        }
    }

    @Test
    void shouldDropAndCountWhenTheCopyPoolIsExhaustedByMulticast() {
        try (Fabric f = Fabric.builder(TestSupport.uniqueName("copy-pool")).deterministic(1).copyPoolFrames(2)
                .build()) {
            int mlid = 0xC002;
            FabricPort sender = f.newPort().attach();
            Recorder[] recorders = new Recorder[5];
            for (int i = 0; i < 5; i++) {
                recorders[i] = new Recorder(f);
                f.newPort().handler(frame -> { /* keeps the frame: the copy pool drains */ }).attach()
                        .joinMulticast(mlid);
            }

            sender.send(mlid, ByteBuffer.allocate(10));
            sender.send(mlid, ByteBuffer.allocate(10));
            f.runUntilIdle();

            // first send: 4 copies wanted, 2 available; second send: 4 wanted, none available
            assertThat(f.counters().drops(DropCause.POOL_EXHAUSTED)).isEqualTo(6);
            assertThat(f.counters().rxFrames()).isEqualTo(4);
        }
    }
}
