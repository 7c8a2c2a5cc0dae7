package io.rvt.driver.sim;

import io.rvt.api.Device;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WrOpcode;
import io.rvt.testkit.DriverFixture;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.Feature;
import io.rvt.testkit.Verbs;

/** RC traffic between devices whose real-time fabric makes its own progress (no fixture drives it). */
public final class RealTimeTraffic implements DriverFixture {
    private final Verbs verbs = new Verbs(this);

    @Override
    public Device[] open(int count) {
        throw new UnsupportedOperationException("devices come from the test");
    }

    @Override
    public boolean progress() {
        return false;
    }

    @Override
    public boolean supports(Feature feature) {
        return false;
    }

    @Override
    public void close() {
    }

    /**
     * Connects an RC QP on {@code a} to one on {@code b}, sends {@code messages} checked messages from a to b and
     * asserts each arrived intact, in order.
     *
     * @param a        the sender's device
     * @param b        the receiver's device
     * @param messages how many
     */
    public void sendChecked(Device a, Device b, int messages) {
        Endpoint[] p = verbs.connected(a, b, QpType.RC, 4096, 7, 1);
        for (int i = 0; i < messages; i++) {
            int len = 1 + (i * 97) % 4096;
            Verbs.fill(p[0].buffer, 0, len, i);
            p[1].qp.postRecv(new RecvWorkRequest(1).wrId(i).sge(p[1].mr, 0, 4096));
            p[0].qp.postSend(new SendWorkRequest(1).wrId(i).opcode(WrOpcode.SEND).sge(p[0].mr, 0, len));
            Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), i);
            Verbs.assertSuccess(verbs.await(p[1].recvCq, 1).get(0), i);
            Verbs.assertPattern(p[1].buffer, 0, len, i);
        }
    }
}
