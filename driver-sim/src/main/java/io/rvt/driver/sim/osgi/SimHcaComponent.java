package io.rvt.driver.sim.osgi;

import io.rvt.api.PathMtu;
import io.rvt.api.spi.RvtDriver;
import io.rvt.driver.sim.SimDriver;
import io.rvt.driver.sim.fabric.FaultConfig;
import io.rvt.driver.sim.fabric.LinkModel;
import io.rvt.driver.sim.fabric.ThreadingMode;
import java.util.Dictionary;
import java.util.Hashtable;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;

/**
 * driver-sim under OSGi: one simulated HCA per Config Admin factory configuration of PID {@value #FACTORY_PID}. On
 * activation it builds a {@link SimDriver} on the named fabric and registers it as an {@link RvtDriver} service, which
 * rvt-core turns into a device; on deactivation (configuration deleted or changed, bundle stopped) it withdraws the
 * service (rvt-core removes the device: QPs to ERR, work flushed, removal event), then stops the HCA's threads and
 * releases the fabric.
 *
 * <p>The driver is registered by hand rather than being the component's service object: rvt-core tells which optional
 * callbacks a driver provides from the methods its class overrides, so the service must be the {@link SimDriver}
 * itself, not a forwarder.
 */
@Component(configurationPid = SimHcaComponent.FACTORY_PID, configurationPolicy = ConfigurationPolicy.REQUIRE,
        service = {})
@Designate(ocd = SimHcaConfig.class, factory = true)
public final class SimHcaComponent {
    /** The factory PID of simulated-HCA configurations. */
    public static final String FACTORY_PID = "io.rvt.driver.sim";
    /** Service property of the driver service: the fabric's name. */
    public static final String PROP_FABRIC = "rvt.sim.fabric";

    private final SimFabrics fabrics;
    private final SimFabrics.Lease lease;
    private final SimDriver driver;
    private final ServiceRegistration<RvtDriver> registration;

    /**
     * @param context driver-sim's bundle context
     * @param config  the HCA's configuration
     * @param fabrics the bundle's fabrics
     */
    @Activate
    public SimHcaComponent(BundleContext context, SimHcaConfig config, @Reference SimFabrics fabrics) {
        this.fabrics = fabrics;
        String name = config.name().isBlank() ? fabrics.unnamed() : config.name();
        this.lease = fabrics.acquire(config);
        try {
            SimDriver.Builder b = SimDriver.builder(lease.fabric()).name(name).ports(config.ports())
                    .mtu(mtu(config.mtu())).maxQp(config.max__qp()).idleStrategy(SimFabrics.idle(config.idle()))
                    .threading(lease.shared ? ThreadingMode.INVOKER : ThreadingMode.DEDICATED)
                    .faults(FaultConfig.builder().loss(config.loss()).duplication(config.duplication())
                            .reorder(config.reorder(), 20_000).corruption(config.corruption()).build());
            if (config.latency__ns() != 0 || config.bandwidth__gbps() != 0) {
                b.link(LinkModel.of(Math.round(config.bandwidth__gbps() * 1e9), config.latency__ns()));
            }
            this.driver = b.build();
        } catch (RuntimeException e) {
            fabrics.release(lease);
            throw e;
        }
        lease.addEngine(driver.sendAgent());
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("rvt.driver.name", name);
        props.put(PROP_FABRIC, lease.fabric().name());
        this.registration = context.registerService(RvtDriver.class, driver, props);
    }

    static PathMtu mtu(int bytes) {
        try {
            return PathMtu.ofBytes(bytes);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("mtu must be 256, 512, 1024, 2048 or 4096 bytes, got " + bytes, e);
        }
    }

    /** @return the HCA */
    SimDriver driver() {
        return driver;
    }

    @Deactivate
    void deactivate() {
        try {
            registration.unregister(); // rvt-core removes the device synchronously
        } catch (IllegalStateException alreadyGone) {
            // the framework withdrew it already
        }
        lease.removeEngine(driver.sendAgent());
        driver.close();
        fabrics.release(lease);
    }
}
