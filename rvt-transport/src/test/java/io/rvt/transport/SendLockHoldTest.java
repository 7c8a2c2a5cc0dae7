package io.rvt.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.core.qp.RvtQp;
import io.rvt.transport.engine.QpProtocolState;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The drain's hold of its QP's {@code sendLock} ({@code LockPolicy.sendLockOverDrains}): only the draining
 * thread that holds it lets go of it through {@link QpSendEngine#letGoOfSendLock(DriverQp)}, once, and a QP without
 * such a hold is left alone, so the transport may call it before any {@code recvLock} it takes from the send path.
 */
class SendLockHoldTest {
    @Test
    void shouldLetGoOfTheDrainsHoldOnlyOnTheDrainingThreadAndOnlyOnce() throws Exception {
        Fabric fabric = new Fabric();
        Node a = fabric.node("a", 1, 4096);
        Node b = fabric.node("b", 2, 4096);
        QueuePair[] qps = Node.pair(QpType.RC, a, b, 8, 1);
        RvtQp qp = (RvtQp) qps[0];
        QpSendEngine engine = new QpSendEngine(qp);
        QpProtocolState st = (QpProtocolState) qp.priv();
        st.driverState(QpSendEngine.KEY, engine);

        QpSendEngine.letGoOfSendLock(qp); // no drain: nothing to let go of
        assertThat(qp.sendLock().isLocked()).isFalse();

        engine.begin(); // this thread drains
        engine.holdSendLock();
        qp.sendLock().lock(); // the transport's own lock in makePacket: a re-entry
        assertThat(qp.sendLock().getHoldCount()).isEqualTo(2);
        qp.sendLock().unlock();

        CompletableFuture.runAsync(() -> QpSendEngine.letGoOfSendLock(qp)).get(30, TimeUnit.SECONDS);
        assertThat(qp.sendLock().isHeldByCurrentThread()).as("another thread cannot let go of the drain's hold")
                .isTrue();

        QpSendEngine.letGoOfSendLock(qp);
        assertThat(qp.sendLock().isLocked()).as("the drainer let go").isFalse();
        QpSendEngine.letGoOfSendLock(qp); // once only
        engine.letGoOfSendLock(); // the drain's own end finds nothing held
        assertThat(qp.sendLock().isLocked()).isFalse();
        engine.end();

        // another thread may take recvLock, then sendLock, at once
        CompletableFuture.runAsync(() -> {
            qp.recvLock().lock();
            qp.sendLock().lock();
            qp.sendLock().unlock();
            qp.recvLock().unlock();
        }).get(30, TimeUnit.SECONDS);
    }

    /**
     * An engine (rc, below io.rvt.transport) lets go of the hold through its QP's protocol state, which asks the
     * {@code SendScheduler} its driver's {@code attach} handed the transport: the same once-only, drainer-only hold.
     */
    @Test
    void shouldLetGoOfTheDrainsHoldWhenAnEngineAsksThroughTheQpsState() throws Exception {
        Fabric fabric = new Fabric();
        Node a = fabric.node("a", 1, 4096);
        Node b = fabric.node("b", 2, 4096);
        RvtQp qp = (RvtQp) Node.pair(QpType.RC, a, b, 8, 1)[0];
        QpSendEngine engine = new QpSendEngine(qp);
        QpProtocolState st = (QpProtocolState) qp.priv();
        st.driverState(QpSendEngine.KEY, engine);

        st.letGoOfSendLock(); // no drain: nothing to let go of
        assertThat(qp.sendLock().isLocked()).isFalse();

        engine.begin();
        engine.holdSendLock();
        CompletableFuture.runAsync(st::letGoOfSendLock).get(30, TimeUnit.SECONDS);
        assertThat(qp.sendLock().isHeldByCurrentThread()).as("another thread cannot let go of the drain's hold")
                .isTrue();
        st.letGoOfSendLock();
        assertThat(qp.sendLock().isLocked()).as("the drainer let go, asked by the engine's side").isFalse();
        st.letGoOfSendLock(); // once only
        assertThat(qp.sendLock().isLocked()).isFalse();
        engine.end();
    }
}
