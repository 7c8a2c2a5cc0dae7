/**
 * The rvt command ({@code ./rvt}): devices, ping-pong, perftest-style measurements and counters on simulated HCAs (driver-sim) or RoCEv2 HCAs over UDP (driver-jni),
 * hosted in an embedded OSGi framework (Felix, Config Admin, Declarative Services) or, with {@code --no-osgi}, in a
 * plain-Java device registry.
 */
module io.rvt.launcher {
    requires io.rvt.api;
    requires io.rvt.cm;
    requires io.rvt.driver.jni;
    requires io.rvt.driver.sim;
    requires java.management; // the JIT's compilation time: WarmUp.Settling
    requires org.apache.felix.framework;
    requires org.osgi.service.cm;
    requires info.picocli;
    requires org.knowm.xchart;
    requires static org.osgi.service.component.annotations; // CLASS retention, for javadoc: driver-sim's annotations

    uses io.rvt.api.DeviceRegistry;
    uses org.osgi.framework.launch.FrameworkFactory;
}
