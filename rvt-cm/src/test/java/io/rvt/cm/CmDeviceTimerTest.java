package io.rvt.cm;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.AccessFlag;
import io.rvt.api.Errno;
import io.rvt.api.Gid;
import io.rvt.core.RvtDevice;
import io.rvt.driver.sim.SimDriver;
import io.rvt.driver.sim.fabric.Fabric;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * rvt-cm has no thread of its own: without a clock of the caller's its timers run on its device's
 * ({@code TimerService.of(device)}, rvt-core's timer agent {@code rvt-DEVICE-timer} on real time), where a connection
 * request's retries still fire, and which goes with the device: a device stopped and started again leaves no thread.
 * (Before, one {@code rvt-cm-timer} executor thread served every CM of the JVM.)
 */
class CmDeviceTimerTest {
    private static final AtomicInteger FABRICS = new AtomicInteger();

    private static Set<String> threadNames() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .collect(java.util.stream.Collectors.toSet());
    }

    @Test
    void shouldRetryAnUnansweredRequestOnTheDevicesTimerAndLeaveNoThreadWhenTheDeviceGoes() throws Exception {
        String fabricName = "cm-timer-" + FABRICS.incrementAndGet();
        try (Fabric fabric = Fabric.builder(fabricName).realTime().seed(5).build()) {
            for (int round = 0; round < 2; round++) { // the same device stopped and started again
                String name = "cmtimer" + FABRICS.get();
                RvtDevice dev = RvtDevice.register(SimDriver.builder(fabric).name(name).build());
                assertThat(threadNames()).contains("rvt-" + name + "-timer");
                // 4.096 us x 2^10 = 4 ms per attempt, 3 retries: ETIMEDOUT after 4 attempts, 16 ms and more
                ConnectionManager cm = ConnectionManager.of(dev, CmConfig.builder().cmResponseTimeout(10)
                        .maxCmRetries(3).build());
                List<Integer> attempts = new CopyOnWriteArrayList<>();
                cm.addEventListener(e -> {
                    if (e.type() == CmEventType.REQUEST_SENT) {
                        attempts.add(e.attempt());
                    }
                });
                var pd = dev.allocPd();
                pd.regMr(ByteBuffer.allocateDirect(4096), AccessFlag.LOCAL_WRITE.bit());
                // nobody answers at this GID: only the CM's timers move the request on (their events are called on
                // the timer's thread or the GSI CQ's completion thread, whichever drains the CM's queue first)
                Connection c = cm.connectAsync(new ConnectOptions().destination(Gid.of(0xfe80_0000_0000_0000L, 0x77))
                        .port(5000).qp(new QpOptions().pd(pd).cq(dev.createCq(16, 0, null, null))));
                Throwable failure = null;
                try {
                    c.established().get(60, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    failure = e.getCause();
                }
                assertThat(failure).as("round %d", round).isInstanceOf(CmException.class);
                assertThat(((CmException) failure).errno()).isEqualTo(Errno.ETIMEDOUT);
                assertThat(attempts).as("the first REQ and three retries").containsExactly(1, 2, 3, 4);
                assertThat(threadNames()).as("no thread of rvt-cm's").noneMatch(n -> n.startsWith("rvt-cm-"));
                c.close();
                cm.close();
                dev.unregister();
                assertThat(io.rvt.cm.impl.CmRegistry.engineCount()).isZero();
                assertThat(threadNames()).as("round %d: nothing of the device or its CM is left", round)
                        .noneMatch(n -> n.contains(name));
            }
        }
    }
}
