package io.rvt.cm.osgi;

import aQute.bnd.annotation.service.ServiceCapability;
import io.rvt.api.Device;
import io.rvt.cm.ConnectionManager;
import java.util.Hashtable;
import java.util.IdentityHashMap;
import java.util.Map;
import org.osgi.annotation.bundle.Requirement;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * Registers a {@link ConnectionManager} service for every {@code io.rvt.api.Device} service, with the device's name
 * in {@value #PROP_DEVICE_NAME} (the property rvt-core's device services carry), so that a DS component connects with
 * {@code @Reference(target = "(rvt.device.name=sim0)") ConnectionManager cm}. Each CM runs with the configuration its
 * device asks for ({@link io.rvt.cm.CmConfig#of}: on a deterministic driver-sim fabric its virtual time and seed, so
 * that an OSGi application's connections replay), the same one {@link ConnectionManager#of(Device)} gives. The service goes when its device does
 * (the CM's connections end with {@code DEVICE_REMOVAL}) or when rvt-cm stops. A consumer must not close the service
 * object; {@link ConnectionManager#of} gives a handle of its own on the same CM.
 *
 * <p>For resolvers (bnd's, Karaf's): it provides the {@code ConnectionManager} services it registers by code
 * ({@link ServiceCapability}) and requires a {@code Device} service to be of any use (a mandatory requirement, of
 * effective time {@code active}, which frameworks do not enforce; DS's own for the 0..n reference is optional), so
 * a resolver that adds rvt-cm adds rvt-core, which provides devices.
 */
@ServiceCapability(ConnectionManager.class)
@Requirement(namespace = "osgi.service", filter = "(objectClass=io.rvt.api.Device)", effective = "active")
@Component(immediate = true, service = {})
public final class ConnectionManagerComponent {
    /** The service property with the device's name. */
    public static final String PROP_DEVICE_NAME = "rvt.device.name";

    private static final System.Logger LOG = System.getLogger(ConnectionManagerComponent.class.getName());

    private final Map<Device, Entry> entries = new IdentityHashMap<>();
    private BundleContext context;

    private static final class Entry {
        final ConnectionManager cm;
        ServiceRegistration<ConnectionManager> registration;

        Entry(ConnectionManager cm) {
            this.cm = cm;
        }
    }

    /**
     * @param context the bundle's context
     */
    @Activate
    void activate(BundleContext context) {
        Map<Device, Entry> early;
        synchronized (this) {
            this.context = context;
            early = Map.copyOf(entries);
        }
        early.forEach(this::register);
    }

    /** Unregisters every CM service and closes the CMs. */
    @Deactivate
    void deactivate() {
        Map<Device, Entry> all;
        synchronized (this) {
            all = Map.copyOf(entries);
            entries.clear();
            context = null;
        }
        all.values().forEach(ConnectionManagerComponent::dispose);
    }

    /**
     * @param device a device service
     */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addDevice(Device device) {
        ConnectionManager cm;
        try {
            cm = ConnectionManager.of(device);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "rvt-cm: no connection manager for device " + device.name() + ": "
                    + e.getMessage());
            return;
        }
        Entry e = new Entry(cm);
        boolean now;
        synchronized (this) {
            entries.put(device, e);
            now = context != null;
        }
        if (now) {
            register(device, e);
        }
    }

    /**
     * @param device a device service that went away
     */
    void removeDevice(Device device) {
        Entry e;
        synchronized (this) {
            e = entries.remove(device);
        }
        if (e != null) {
            dispose(e);
        }
    }

    private void register(Device device, Entry e) {
        Hashtable<String, Object> props = new Hashtable<>();
        props.put(PROP_DEVICE_NAME, device.name());
        props.put("service.description", "rvt-cm connection manager of " + device.name());
        BundleContext c;
        synchronized (this) {
            c = context;
            if (c == null || entries.get(device) != e || e.registration != null) {
                return;
            }
        }
        ServiceRegistration<ConnectionManager> r = c.registerService(ConnectionManager.class, e.cm, props);
        synchronized (this) {
            e.registration = r;
        }
    }

    private static void dispose(Entry e) {
        ServiceRegistration<ConnectionManager> r;
        synchronized (e) {
            r = e.registration;
            e.registration = null;
        }
        if (r != null) {
            try {
                r.unregister();
            } catch (IllegalStateException ignored) {
                // already gone with the bundle
            }
        }
        e.cm.close();
    }
}
