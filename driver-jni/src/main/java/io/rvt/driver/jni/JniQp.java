package io.rvt.driver.jni;

import io.rvt.api.spi.DriverQp;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * driver-jni's per-QP send-engine state: a request counter that serialises the engine without locks (whoever raises
 * it from 0 drains the QP; requests meanwhile make the drainer loop once more), as driver-sim does.
 */
final class JniQp {
    final DriverQp qp;
    final AtomicInteger pending = new AtomicInteger();
    volatile Thread drainer;
    volatile boolean stopped;

    JniQp(DriverQp qp) {
        this.qp = qp;
    }
}
