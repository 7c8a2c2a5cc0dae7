package io.rvt.core.osgi;

import aQute.bnd.annotation.service.ServiceCapability;
import io.rvt.api.Device;
import io.rvt.api.DeviceAttributes;
import io.rvt.api.VerbsException;
import io.rvt.api.spi.RvtDriver;
import io.rvt.core.RvtDevice;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/**
 * rvt-core under OSGi: tracks every {@link RvtDriver} service, validates and registers each
 * ({@code rvt_register_device}) and publishes its device as an {@link Device} service; when the driver service goes
 * away the device is removed ({@code rvt_unregister_device}: QPs to ERR, posted work flushed, the
 * {@code DEVICE_REMOVAL} event, the driver told to stop) and its service unregistered. A driver that breaks the SPI is
 * refused with one log line and gets no device. Also publishes the {@code rvt:*} Gogo commands.
 *
 * <p>The device services are registered by code, so {@link ServiceCapability} declares them to resolvers
 * ({@code Provide-Capability: osgi.service} of {@link Device}); the Gogo commands' service (of type {@code Object},
 * found by its {@code osgi.command.scope}) gets none.
 */
@ServiceCapability(Device.class)
@Component(immediate = true)
public final class DriverTracker {
    /** Service property: the device name ({@link Device#name()}). */
    public static final String PROP_DEVICE_NAME = "rvt.device.name";
    /** Service property: the node GUID as ibverbs prints it, {@code 0052:5654:0010:0010}. */
    public static final String PROP_NODE_GUID = "rvt.node.guid";
    /** Service property: the driver's name ({@code RvtDriver.name()}). */
    public static final String PROP_DRIVER = "rvt.driver";
    /** Service property: the number of ports (Integer). */
    public static final String PROP_PORTS = "rvt.ports";

    private static final System.Logger LOG = System.getLogger(DriverTracker.class.getName());

    private final BundleContext context;
    /** Keyed by identity: a driver's equals() is its own business. Guarded by {@code this}. */
    private final Map<RvtDriver, Tracked> tracked = new IdentityHashMap<>();
    private final List<String> refused = new ArrayList<>();
    private boolean active = true;
    private final ServiceRegistration<?> commands;

    private record Tracked(RvtDevice device, ServiceRegistration<Device> registration) {
    }

    /**
     * @param context rvt-core's bundle context, under which device services are registered
     */
    @Activate
    public DriverTracker(BundleContext context) {
        this.context = context;
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("osgi.command.scope", "rvt");
        props.put("osgi.command.function", RvtCommands.FUNCTIONS);
        this.commands = context.registerService(Object.class, new RvtCommands(this), props);
    }

    /**
     * A driver service arrived: register it and publish its device.
     *
     * @param driver the driver
     * @param props  its service properties (for the log line)
     */
    @Reference(service = RvtDriver.class, cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY, unbind = "removeDriver")
    void addDriver(RvtDriver driver, Map<String, Object> props) {
        RvtDevice device;
        try {
            device = RvtDevice.register(driver);
        } catch (VerbsException | IllegalArgumentException e) {
            String why = "refused driver service " + props.get("service.id") + " (" + driver.getClass().getName()
                    + "): " + e.getMessage();
            synchronized (this) {
                refused.add(why);
            }
            LOG.log(System.Logger.Level.ERROR, "rvt: {0}", why);
            return;
        }
        synchronized (this) {
            if (active) {
                tracked.put(driver, new Tracked(device, context.registerService(Device.class, device,
                        serviceProperties(device))));
                return;
            }
        }
        device.unregister();
    }

    /**
     * A driver service went away (its bundle stopped, its configuration was deleted): remove its device.
     *
     * @param driver the driver
     */
    void removeDriver(RvtDriver driver) {
        Tracked t;
        synchronized (this) {
            t = tracked.remove(driver);
        }
        if (t != null) {
            remove(t);
        }
    }

    /** rvt-core is stopping: every device goes. */
    @Deactivate
    void deactivate() {
        List<Tracked> all;
        synchronized (this) {
            active = false;
            all = new ArrayList<>(tracked.values());
            tracked.clear();
        }
        for (Tracked t : all) {
            remove(t);
        }
        commands.unregister();
    }

    private static void remove(Tracked t) {
        // Flush and tell the application first, while the service is still visible; then withdraw it.
        try {
            t.device.unregister();
        } finally {
            try {
                t.registration.unregister();
            } catch (IllegalStateException alreadyGone) {
                // the framework is shutting down and has withdrawn it already
            }
        }
    }

    /** @return the devices published now, in no particular order */
    synchronized List<RvtDevice> devices() {
        List<RvtDevice> out = new ArrayList<>();
        for (Tracked t : tracked.values()) {
            out.add(t.device);
        }
        out.sort((a, b) -> a.name().compareTo(b.name()));
        return out;
    }

    /** @return one line per refused driver, oldest first */
    synchronized List<String> refused() {
        return List.copyOf(refused);
    }

    static Dictionary<String, Object> serviceProperties(RvtDevice device) {
        Dictionary<String, Object> p = new Hashtable<>();
        p.put(PROP_DEVICE_NAME, device.name());
        p.put(PROP_NODE_GUID, DeviceAttributes.formatGuid(device.props().nodeGuid()));
        p.put(PROP_DRIVER, device.driverName());
        p.put(PROP_PORTS, device.portCount());
        p.put("service.description", "rvt device " + device.name() + " (driver " + device.driverName() + ")");
        return p;
    }
}
