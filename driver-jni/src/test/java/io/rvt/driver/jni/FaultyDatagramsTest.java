package io.rvt.driver.jni;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.testkit.Faults;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The fixture's fault decorator: a datagram held back for reordering is not held for ever. */
class FaultyDatagramsTest {
    private static final long DEADLINE_NANOS = 20_000_000_000L;

    /**
     * A lone datagram held back (reorder 100 %) leaves once it has waited {@link FaultyDatagrams#HOLD_LIMIT_NANOS}
     * though no later one follows it, at a receive of another socket of the group: a lone RC retry, or the ACK to it,
     * held until the next send was a loss.
     */
    @Test
    void shouldReleaseAHeldDatagramWhenNoLaterOneFollows() throws Exception {
        InetAddress local = InetAddress.getByName("127.0.0.1");
        List<FaultyDatagrams> group = new CopyOnWriteArrayList<>();
        try (FaultyDatagrams a = new FaultyDatagrams("a", new NativeDatagrams(local, 0, 1 << 20), 1, 4096, group);
                FaultyDatagrams b = new FaultyDatagrams("b", new NativeDatagrams(local, 0, 1 << 20), 2, 4096,
                        group)) {
            a.faults(new Faults(0, 0, 1.0, 0));
            TxBatch tx = new TxBatch(4, 4096);
            tx.data.putLong(tx.nextOffset(), 0x5EED_0F_FA17L);
            tx.add(new Peer(Peer.gidOf(local), b.localPort()), 8);
            assertThat(a.send(tx)).isZero();
            assertThat(a.counts()).contains("held=1 ").contains("still_held=1 ");

            RxBatch rx = new RxBatch(4, 4096);
            long deadline = System.nanoTime() + DEADLINE_NANOS;
            int n;
            while ((n = b.receive(rx)) == 0) {
                assertThat(System.nanoTime()).as("the held datagram arrives; a: %s", a.counts()).isLessThan(deadline);
                b.await(10);
            }
            assertThat(n).isEqualTo(1);
            assertThat(rx.length(0)).isEqualTo(8);
            assertThat(rx.data.getLong(rx.offset(0))).isEqualTo(0x5EED_0F_FA17L);
            assertThat(a.counts()).contains("sent=1 ").contains("released_late=1 ").contains("still_held=0 ");
        }
    }
}
