package io.rvt.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link PacketDriver#lockPolicy()}: the three lock-holding choices as one object, the deprecated hooks still feeding
 * its default, asked once; and a {@link Delivery} bound to its thread's scratch, through which a driver's helper
 * ends batches and drains without the driver.
 */
class PacketDriverLockPolicyTest {
    /** A wire that records what it is asked; no device. */
    private static class Recording extends BareWireDriver<QpSendEngine> {
        final List<String> sent = new ArrayList<>();
        int policyCalls;

        Recording() {
            super(QpSendEngine.class, "recording");
        }

        @Override
        protected int sendPacket(QpSendEngine e, String scratch) {
            sent.add(scratch);
            return 0;
        }

        @Override
        protected void schedule(QpSendEngine e) {
            throw new AssertionError("nothing is scheduled here");
        }

        @Override
        protected String sendScratch() {
            return "poster";
        }
    }

    @Test
    void shouldBuildTheDefaultPolicyFromTheDeprecatedHooks() {
        assertThat(new Recording().lockPolicy()).isEqualTo(LockPolicy.PER_PACKET)
                .isEqualTo(new LockPolicy(false, false, false));
        Recording old = new Recording() {
            @Override
            @SuppressWarnings("deprecation")
            protected boolean holdsRecvLockOverRuns() {
                return true;
            }

            @Override
            @SuppressWarnings("deprecation")
            protected boolean schedulesDeferred() {
                return true;
            }
        };
        assertThat(old.lockPolicy()).isEqualTo(new LockPolicy(false, true, true));
        assertThat(LockPolicy.PER_PACKET.withSendLockOverDrains(true).withRecvLockOverRuns(true))
                .isEqualTo(new LockPolicy(true, true, false));
    }

    @Test
    void shouldAskThePolicyOnceAndDrainWithTheDeliverysScratch() {
        Recording d = new Recording() {
            @Override
            protected LockPolicy lockPolicy() {
                policyCalls++;
                return LockPolicy.PER_PACKET;
            }
        };
        Delivery lane = d.newDelivery(1, "lane");
        QpSendEngine e = new QpSendEngine(null);
        for (int i = 0; i < 3; i++) {
            assertThat(e.request()).isTrue();
            lane.drain(e);
        }
        lane.endBatch(); // nothing received, nothing deferred
        assertThat(d.sent).containsExactly("lane", "lane", "lane");
        assertThat(d.policyCalls).isEqualTo(1);
        assertThat(lane.portNum()).isEqualTo(1);
    }

    @Test
    void shouldRefuseABatchEndOnADeliveryMadeWithoutScratch() {
        Recording d = new Recording();
        Delivery bare = d.newDelivery(2);
        assertThatThrownBy(bare::endBatch).isInstanceOf(IllegalStateException.class)
                .hasMessage("the delivery of port 2 has no send scratch: make it with newDelivery(portNum, scratch)");
        assertThatThrownBy(() -> d.newDelivery(1, null)).isInstanceOf(NullPointerException.class)
                .hasMessage("scratch");
        Recording nul = new Recording() {
            @Override
            protected LockPolicy lockPolicy() {
                return null;
            }
        };
        QpSendEngine e = new QpSendEngine(null);
        e.request();
        Delivery lane = nul.newDelivery(1, "lane");
        assertThatThrownBy(() -> lane.drain(e)).isInstanceOf(IllegalStateException.class)
                .hasMessageEndingWith(".lockPolicy() returned null");
    }
}
