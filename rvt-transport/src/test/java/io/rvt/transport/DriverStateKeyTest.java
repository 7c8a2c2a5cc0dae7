package io.rvt.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.QpType;
import io.rvt.api.spi.DriverQp;
import io.rvt.core.qp.RvtQp;
import io.rvt.transport.engine.DriverStateKey;
import io.rvt.transport.engine.QpProtocolState;
import java.lang.reflect.Proxy;
import org.junit.jupiter.api.Test;

/**
 * A driver's per-QP state (rdmavt's {@code qp->priv}, the driver's part) stored and read through a typed
 * {@link DriverStateKey}: read back as the driver's class with no cast of its own, one slot under two keys (the
 * driver's and {@link QpSendEngine#KEY}), a state of the wrong class refused where it is stored or read, naming both
 * classes, and a {@link PacketDriver} whose {@code newSendEngine} makes another class than it declares refused at
 * {@code qp_priv_alloc}.
 */
class DriverStateKeyTest {
    /** A driver's own per-QP state. */
    static class MyEngine extends QpSendEngine {
        MyEngine(DriverQp qp) {
            super(qp);
        }
    }

    private static final DriverStateKey<MyEngine> MINE = DriverStateKey.of(MyEngine.class);

    private static RvtQp rcQp() {
        Fabric fabric = new Fabric();
        return (RvtQp) Node.pair(QpType.RC, fabric.node("a", 1, 4096), fabric.node("b", 2, 4096), 8, 1)[0];
    }

    @Test
    void shouldReadTheDriversStateAsItsOwnClassThroughEitherKey() {
        RvtQp qp = rcQp();
        QpProtocolState st = (QpProtocolState) qp.priv();
        assertThat(QpSendEngine.of(qp)).as("TransportDriver's qp_priv_alloc stored an engine").isNotNull();
        assertThat(MINE.find(st)).as("not a MyEngine").isNull();

        MyEngine mine = new MyEngine(qp);
        st.driverState(MINE, mine);

        MyEngine read = MINE.get(qp);
        assertThat(read).isSameAs(mine).isSameAs(MINE.get(st)).isSameAs(MINE.find(st));
        assertThat(QpSendEngine.of(qp)).as("one slot, the base key reads it too").isSameAs(mine);
        assertThat(QpSendEngine.KEY.find(st)).isSameAs(mine);

        st.driverState(MINE, null); // qp_priv_free's forgetting
        assertThat(MINE.get(qp)).isNull();
        assertThat(QpSendEngine.of(qp)).isNull();
    }

    @Test
    @SuppressWarnings({"unchecked", "rawtypes"})
    void shouldRefuseAStateOfAnotherClassNamingBoth() {
        RvtQp qp = rcQp();
        QpProtocolState st = (QpProtocolState) qp.priv();
        st.driverState(QpSendEngine.KEY, new QpSendEngine(qp));

        assertThatThrownBy(() -> MINE.get(qp)).isInstanceOf(IllegalStateException.class)
                .hasMessage("the QP's driver state is a io.rvt.transport.QpSendEngine, not a "
                        + MyEngine.class.getName());
        DriverStateKey raw = MINE; // a raw caller the compiler cannot stop
        assertThatThrownBy(() -> st.driverState(raw, "text")).isInstanceOf(IllegalStateException.class)
                .hasMessage("the QP's driver state is a java.lang.String, not a " + MyEngine.class.getName());
        assertThat(QpSendEngine.of(qp)).as("the refused state was not stored").isNotNull();
        assertThatThrownBy(() -> DriverStateKey.of(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("type");
    }

    @Test
    void shouldFindNothingOnAQpWhosePrivIsNotTheTransports() {
        DriverQp bare = (DriverQp) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DriverQp.class},
                (p, m, a) -> m.getName().equals("priv") ? "a driver's own priv" : null);
        assertThat(MINE.get(bare)).isNull();
        assertThat(QpSendEngine.of(bare)).isNull();
    }

    @Test
    void shouldRefuseAnEngineOfAnotherClassThanThePacketDriverDeclaresAtQpPrivAlloc() {
        Fabric fabric = new Fabric();
        Node a = fabric.node("a", 1, 4096);
        RvtQp qp = (RvtQp) Node.pair(QpType.RC, a, fabric.node("b", 2, 4096), 8, 1)[0];

        Typed right = new Typed(false);
        right.attach(a.dev);
        QpProtocolState st = (QpProtocolState) right.qpPrivAlloc(a.dev, qp);
        assertThat(MINE.get(st)).isInstanceOf(MyEngine.class);

        Typed wrong = new Typed(true);
        wrong.attach(a.dev);
        assertThatThrownBy(() -> wrong.qpPrivAlloc(a.dev, qp)).isInstanceOf(IllegalStateException.class)
                .hasMessage(Typed.class.getName() + ".newSendEngine made a io.rvt.transport.QpSendEngine, not the "
                        + MyEngine.class.getName() + " its PacketDriver declares");
    }

    /** A packet driver of {@link MyEngine}s whose factory may make the base class instead. */
    private static final class Typed extends BareWireDriver<MyEngine> {
        private final boolean wrongClass;

        Typed(boolean wrongClass) {
            super(MyEngine.class, "typed");
            this.wrongClass = wrongClass;
        }

        @Override
        protected QpSendEngine newSendEngine(DriverQp qp) {
            return wrongClass ? new QpSendEngine(qp) : new MyEngine(qp);
        }

        @Override
        protected int sendPacket(MyEngine e, String scratch) {
            return 0;
        }

        @Override
        protected void schedule(MyEngine e) {
            throw new AssertionError("nothing is scheduled here");
        }

        @Override
        protected String sendScratch() {
            return "";
        }
    }
}
