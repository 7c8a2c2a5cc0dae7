package io.rvt.transport;

import io.rvt.api.PathMtu;
import io.rvt.api.spi.DriverParams;
import io.rvt.api.spi.DriverQp;
import io.rvt.api.spi.OperationTable;

/**
 * A packet driver with no device of its own and no wire behind it, for tests of {@link PacketDriver}'s own logic:
 * the identity, parameters and QP callbacks every such test would otherwise write again; a test supplies the wire.
 *
 * @param <E> its per-QP engine
 */
abstract class BareWireDriver<E extends QpSendEngine> extends PacketDriver<E, String> {
    private final String name;

    BareWireDriver(Class<E> engineType, String name) {
        super(engineType);
        this.name = name;
    }

    @Override
    protected PathMtu portMtu() {
        return PathMtu.MTU_4096;
    }

    @Override
    public void flushQpWaiters(DriverQp qp) {
    }

    @Override
    public void quiesceQp(DriverQp qp) {
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public DriverParams params() {
        return packetHcaParams(1, 1, 16, 1);
    }

    @Override
    public OperationTable postParms() {
        return OperationTable.standard();
    }
}
