package io.rvt.driver.sim.osgi;

import aQute.bnd.annotation.service.ServiceCapability;
import io.rvt.api.PathMtu;
import io.rvt.api.spi.RvtDriver;
import io.rvt.api.spi.agent.ThreadingMode;
import io.rvt.driver.sim.SimDriver;
import io.rvt.driver.sim.fabric.FaultConfig;
import io.rvt.driver.sim.fabric.Link;
import io.rvt.driver.sim.fabric.LinkModel;
import java.util.Dictionary;
import java.util.Hashtable;
import org.osgi.annotation.bundle.Requirement;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;

/**
 * driver-sim under OSGi: one simulated HCA per Config Admin factory configuration of PID {@value #FACTORY_PID}. On
 * activation it builds a {@link SimDriver} on the named fabric and registers it as an {@link RvtDriver} service, which
 * rvt-core turns into a device; on deactivation (configuration deleted, bundle stopped) it withdraws the service
 * (rvt-core removes the device: QPs to ERR, work flushed, removal event), then stops the HCA's threads and releases
 * the fabric.
 *
 * <p>A changed configuration ({@link Modified}) is applied where it can be without touching the device: the link
 * properties ({@code loss}, {@code duplication}, {@code reorder}, {@code corruption}, {@code latency_ns},
 * {@code bandwidth_gbps}) go to the HCA's links at once. Any other change (name, fabric, ports, MTU, limits,
 * threading, fabric settings) re-creates the device: the old one is removed as on deactivation, then a new one is
 * built. A configuration applied again with the same values (Karaf's fileinstall does this) changes nothing.
 *
 * <p>The driver is registered by hand rather than being the component's service object: rvt-core tells which optional
 * callbacks a driver provides from the methods its class overrides, so the service must be the {@link SimDriver}
 * itself, not a forwarder; and a re-created device needs a new driver under the same component.
 *
 * <p>For resolvers: it provides the {@code RvtDriver} services it registers by code ({@link ServiceCapability}) and,
 * since every HCA is a configuration, requires Config Admin's service (effective time {@code active}: frameworks do
 * not enforce it, resolvers add a Config Admin).
 */
@ServiceCapability(RvtDriver.class)
@Requirement(namespace = "osgi.service", filter = "(objectClass=org.osgi.service.cm.ConfigurationAdmin)",
        effective = "active")
@Component(configurationPid = SimHcaComponent.FACTORY_PID, configurationPolicy = ConfigurationPolicy.REQUIRE,
        service = {})
@Designate(ocd = SimHcaConfig.class, factory = true)
public final class SimHcaComponent {
    /** The factory PID of simulated-HCA configurations. */
    public static final String FACTORY_PID = "io.rvt.driver.sim";
    /** Service property of the driver service: the fabric's name. */
    public static final String PROP_FABRIC = "rvt.sim.fabric";

    private static final System.Logger LOG = System.getLogger(SimHcaComponent.class.getName());

    private final BundleContext context;
    private final SimFabrics fabrics;
    /** The running HCA; null after a re-creation failed. Guarded by {@code this}. */
    private Hca hca;

    /**
     * The properties that only a new device can take. A property added to {@link SimHcaConfig} belongs here unless
     * {@link Hca#applyLive} applies it to the running HCA.
     */
    record Fixed(String name, String fabric, int ports, int mtu, int maxQp, String threading, String idle,
            boolean deterministic, long seed) {
        static Fixed of(SimHcaConfig c) {
            return new Fixed(c.name(), c.fabric(), c.ports(), c.mtu(), c.max__qp(), c.threading(), c.idle(),
                    c.deterministic(), c.seed());
        }
    }

    /** One HCA built from a configuration: its fabric lease, its driver and the driver's service. */
    private static final class Hca {
        final Fixed fixed;
        final SimFabrics.Lease lease;
        final SimDriver driver;
        final ServiceRegistration<RvtDriver> registration;

        Hca(BundleContext context, SimHcaConfig config, SimFabrics fabrics) {
            this.fixed = Fixed.of(config);
            String name = config.name().isBlank() ? SimDriver.DEFAULT_NAME : config.name();
            this.lease = fabrics.acquire(config);
            try {
                SimDriver.Builder b = SimDriver.builder(lease.fabric()).name(name).ports(config.ports())
                        .mtu(mtu(config.mtu())).maxQp(config.max__qp()).idleStrategy(SimFabrics.idle(config.idle()))
                        .threading(threading(lease))
                        .faults(faults(config));
                LinkModel link = link(config);
                if (link != null) {
                    b.link(link);
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

        /** Gives the HCA's links the configuration's faults and timing, for frames that reach them from now on. */
        void applyLive(SimHcaConfig config) {
            FaultConfig f = faults(config);
            LinkModel link = link(config);
            for (int p = 1; p <= driver.params().nports(); p++) {
                Link l = driver.fabricPort(p).link();
                l.faults(f);
                l.model(link != null ? link : LinkModel.IDEAL);
            }
        }

        void stop(SimFabrics fabrics) {
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

    /**
     * @param context driver-sim's bundle context
     * @param config  the HCA's configuration
     * @param fabrics the bundle's fabrics
     */
    @Activate
    public SimHcaComponent(BundleContext context, SimHcaConfig config, @Reference SimFabrics fabrics) {
        this.context = context;
        this.fabrics = fabrics;
        this.hca = new Hca(context, config, fabrics);
    }

    /**
     * The configuration changed: applies the link properties live, and re-creates the device only if a property
     * outside them changed.
     *
     * @param config the new configuration
     * @throws IllegalArgumentException naming the property if the new configuration is invalid (the device is then
     *                                  gone until a valid one arrives)
     */
    @Modified
    void modified(SimHcaConfig config) {
        mtu(config.mtu()); // what can be checked is checked before the running HCA goes
        SimFabrics.idle(config.idle());
        Hca old;
        synchronized (this) {
            old = hca;
            if (old != null && old.fixed.equals(Fixed.of(config))) {
                old.applyLive(config);
                return;
            }
            hca = null;
        }
        if (old != null) {
            LOG.log(System.Logger.Level.INFO, "rvt-sim: HCA {0} re-created for its new configuration",
                    old.driver.name());
            old.stop(fabrics);
        }
        Hca fresh = new Hca(context, config, fabrics);
        synchronized (this) {
            hca = fresh;
        }
    }

    /** The HCA's send engine: in the fabric's duty cycle (progress), the shared thread's, or a thread of its own. */
    static ThreadingMode threading(SimFabrics.Lease lease) {
        if (lease.shared) {
            return ThreadingMode.INVOKER;
        }
        return lease.fabric().threading() == ThreadingMode.PROGRESS ? ThreadingMode.PROGRESS : ThreadingMode.DEDICATED;
    }

    static PathMtu mtu(int bytes) {
        try {
            return PathMtu.ofBytes(bytes);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("mtu must be 256, 512, 1024, 2048 or 4096 bytes, got " + bytes, e);
        }
    }

    private static FaultConfig faults(SimHcaConfig c) {
        return FaultConfig.builder().loss(c.loss()).duplication(c.duplication()).reorder(c.reorder(), 20_000)
                .corruption(c.corruption()).build();
    }

    /** @return the configured link timing, or null for the ideal link */
    private static LinkModel link(SimHcaConfig c) {
        if (c.latency__ns() == 0 && c.bandwidth__gbps() == 0) {
            return null;
        }
        return LinkModel.of(Math.round(c.bandwidth__gbps() * 1e9), c.latency__ns());
    }

    /** @return the HCA, or null while a re-creation has failed */
    synchronized SimDriver driver() {
        return hca == null ? null : hca.driver;
    }

    @Deactivate
    void deactivate() {
        Hca old;
        synchronized (this) {
            old = hca;
            hca = null;
        }
        if (old != null) {
            old.stop(fabrics);
        }
    }
}
