package io.rvt.cm;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.Device;
import io.rvt.api.Gid;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The real-time timer thread the CMs share keeps nothing of the thread that happened to start it. */
class CmTimerThreadTest {
    @Test
    void shouldNotKeepTheContextClassLoaderOfTheThreadThatFirstArmedATimer() throws Exception {
        assertThat(io.rvt.cm.impl.CmRegistry.timerThreadRunning()).as("no CM open before the test").isFalse();
        try (SimLab lab = new SimLab(11); URLClassLoader driverLoader = new URLClassLoader(new URL[0], null)) {
            Device device = lab.bareDevice();
            // the shared real-time timer (of(device) alone would take the deterministic fabric's clock)
            SimLab.Host h = new SimLab.Host(device, ConnectionManager.of(device, CmConfig.defaults()));
            AtomicReference<Connection> c = new AtomicReference<>();
            Thread driverThread = new Thread(() -> c.set(h.cm.connectAsync(new ConnectOptions()
                    .destination(Gid.of(0xfe80_0000_0000_0000L, 0x77)).port(5000).qp(h.qp()))), "a driver's thread");
            driverThread.setContextClassLoader(driverLoader); // as a driver bundle's engine thread would have
            driverThread.start(); // its REQ arms the first timer: the executor makes its thread there
            driverThread.join();

            Thread timer = Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals("rvt-cm-timer"))
                    .findFirst().orElseThrow(() -> new AssertionError("no rvt-cm-timer thread"));
            assertThat(timer.getContextClassLoader()).isNotSameAs(driverLoader)
                    .isSameAs(ConnectionManager.class.getClassLoader());
            c.get().close();
            h.cm.close();
        }
        assertThat(io.rvt.cm.impl.CmRegistry.timerThreadRunning()).as("the timer stops with the last CM").isFalse();
    }
}
