package io.rvt.core;

import io.rvt.api.spi.DriverQp;
import io.rvt.api.spi.engine.CallSend;
import io.rvt.api.spi.engine.SendWqe;
import io.rvt.api.spi.engine.WqeSetup;

/** A {@link TestDriver} that has {@code setup_wqe} ({@link WqeSetup}): accepts every WQE unless a test overrides it. */
public class SetupWqeTestDriver extends TestDriver implements WqeSetup {
    @Override
    public int setupWqe(DriverQp qp, SendWqe wqe, CallSend callSend) {
        return 0;
    }
}
