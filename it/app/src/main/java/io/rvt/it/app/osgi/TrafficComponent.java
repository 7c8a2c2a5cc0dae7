package io.rvt.it.app.osgi;

import io.rvt.api.Device;
import io.rvt.it.app.BackgroundTraffic;
import io.rvt.it.app.RcTraffic;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
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
 * The application under OSGi. It knows devices only as {@link Device} services, and offers what it does as services
 * of {@code java.*} types (shared by every class loader, so a test outside the framework calls them directly), each
 * told apart by the property {@value #PROP_FUNCTION}:
 * <ul>
 * <li>{@code rc-traffic}, a {@code Function<String, String>}: argument {@code "<driver> <driver> <messages>"} (the
 * devices' {@code rvt.driver} names, the same name twice for two QPs of one device); runs checked RC traffic and
 * returns a summary, or throws saying what went wrong;</li>
 * <li>{@code start-background}, a {@code Function<String, String>}: argument {@code "<driver> <driver>"}; starts
 * {@link BackgroundTraffic} from the first to the second;</li>
 * <li>{@code background-report}, a {@code Callable<Map<String, Object>>}: the running traffic's
 * {@link BackgroundTraffic#report()} (empty if none was started).</li>
 * </ul>
 */
@Component(immediate = true)
public final class TrafficComponent {
    /** Service property naming what a function service does. */
    public static final String PROP_FUNCTION = "rvt.it.function";
    private static final long DEVICE_WAIT_NS = 10_000_000_000L;

    private final List<Device> devices = new CopyOnWriteArrayList<>();
    private final List<ServiceRegistration<?>> registrations = new ArrayList<>();
    private volatile BackgroundTraffic background;

    /**
     * @param context the bundle's context, under which the function services are registered
     */
    @Activate
    public TrafficComponent(BundleContext context) {
        Function<String, String> rcTraffic = this::rcTraffic;
        Function<String, String> startBackground = this::startBackground;
        Callable<Map<String, Object>> backgroundReport = this::backgroundReport;
        registrations.add(context.registerService(Function.class, rcTraffic, function("rc-traffic")));
        registrations.add(context.registerService(Function.class, startBackground, function("start-background")));
        registrations.add(context.registerService(Callable.class, backgroundReport, function("background-report")));
    }

    private static Dictionary<String, Object> function(String name) {
        Dictionary<String, Object> props = new Hashtable<>();
        props.put(PROP_FUNCTION, name);
        return props;
    }

    /**
     * A device service arrived.
     *
     * @param device the device
     */
    @Reference(service = Device.class, cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY, unbind = "removeDevice")
    void addDevice(Device device) {
        devices.add(device);
    }

    /**
     * A device service went away: forget it, so that its driver's classes can be collected.
     *
     * @param device the device
     */
    void removeDevice(Device device) {
        devices.remove(device);
    }

    @Deactivate
    void deactivate() {
        for (ServiceRegistration<?> r : registrations) {
            r.unregister();
        }
        BackgroundTraffic b = background;
        if (b != null) {
            b.stop();
        }
    }

    private String rcTraffic(String args) {
        String[] a = args.trim().split("\\s+");
        return RcTraffic.run(device(a[0]), device(a[1]), Integer.parseInt(a[2]));
    }

    private String startBackground(String args) {
        String[] a = args.trim().split("\\s+");
        BackgroundTraffic old = background;
        if (old != null) {
            old.stop();
        }
        Device from = device(a[0]);
        Device to = device(a[1]);
        background = new BackgroundTraffic(from, to);
        return "started: background RC traffic from " + from.name() + " to " + to.name();
    }

    private Map<String, Object> backgroundReport() {
        BackgroundTraffic b = background;
        return b == null ? Map.of() : b.report();
    }

    /** The device of driver {@code driverName}, waiting a little for its service to be bound. */
    private Device device(String driverName) {
        long deadline = System.nanoTime() + DEVICE_WAIT_NS;
        while (true) {
            for (Device d : devices) {
                if (d.driverName().equals(driverName) && d.isAlive()) {
                    return d;
                }
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("no device service of driver '" + driverName + "'");
            }
            Thread.onSpinWait();
        }
    }
}
