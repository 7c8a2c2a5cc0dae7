package io.rvt.driver.sim.osgi;

import aQute.bnd.annotation.service.ServiceCapability;
import io.rvt.api.spi.TimerService;
import io.rvt.api.spi.agent.Agent;
import io.rvt.api.spi.agent.AgentRunner;
import io.rvt.api.spi.agent.BackoffIdleStrategy;
import io.rvt.api.spi.agent.BusySpinIdleStrategy;
import io.rvt.api.spi.agent.DynamicCompositeAgent;
import io.rvt.api.spi.agent.IdleStrategy;
import io.rvt.api.spi.agent.ThreadingMode;
import io.rvt.driver.sim.fabric.Fabric;
import io.rvt.driver.sim.fabric.FabricBuilder;
import io.rvt.driver.sim.fabric.FabricMode;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

/**
 * The fabrics of the configured HCAs, shared by name and reference-counted: the first HCA that names a fabric
 * creates it with its fabric settings, the last one to go closes it (its thread stops). In {@code shared} threading
 * one thread runs the fabric and the send engines of all its HCAs. Nothing here is static: stopping driver-sim's
 * bundle closes every fabric it made.
 *
 * <p>Each fabric in use is offered to applications in types every bundle shares, with service properties
 * {@value #PROP_FABRIC} (its name) and {@value #PROP_SEED}: its counters as a {@code Supplier<Map<String, Long>>}
 * ({@link Fabric#counterMap()}, with {@code trace_hash} when deterministic, under {@value #PROP_COUNTERS}), and, when
 * deterministic, its virtual-time {@link TimerService}, on which an application's own timers (rvt-cm's) then run so
 * that a seeded run replays. Both are registered by code: {@link ServiceCapability} declares them to resolvers.
 */
@ServiceCapability(Supplier.class)
@ServiceCapability(TimerService.class)
@Component(service = SimFabrics.class)
public final class SimFabrics {
    /** Service property: the fabric's name. */
    public static final String PROP_FABRIC = "rvt.sim.fabric";
    /** Service property: the fabric's seed. */
    public static final String PROP_SEED = "rvt.sim.seed";
    /** Service property marking the fabric-counters {@code Supplier}. */
    public static final String PROP_COUNTERS = "rvt.sim.fabric.counters";

    private volatile BundleContext context;

    @Activate
    void activate(BundleContext ctx) {
        this.context = ctx;
    }
    private static final System.Logger LOG = System.getLogger(SimFabrics.class.getName());

    /** A fabric in use. */
    static final class Lease {
        final Fabric fabric;
        final boolean shared;
        final IdleStrategy idle;
        final String settings;
        /** Runs the fabric and the HCAs' send engines in shared threading; else null. */
        final DynamicCompositeAgent composite;
        final AgentRunner runner;
        /** The fabric's services for applications (counters, a deterministic fabric's timers). */
        final List<ServiceRegistration<?>> services = new ArrayList<>();
        int refs;

        Lease(Fabric fabric, boolean shared, IdleStrategy idle, String settings) {
            this.fabric = fabric;
            this.shared = shared;
            this.idle = idle;
            this.settings = settings;
            if (shared) {
                composite = new DynamicCompositeAgent("rvt-sim-" + fabric.name());
                composite.add(fabric.agent());
                runner = AgentRunner.start(composite, idle, e -> LOG.log(System.Logger.Level.WARNING,
                        "fabric " + fabric.name() + ": an engine failed", e));
            } else {
                composite = null;
                runner = null;
            }
        }

        /** @return the fabric */
        Fabric fabric() {
            return fabric;
        }

        /**
         * @param sendAgent an HCA's send engine, run on the shared thread; ignored in dedicated threading
         */
        void addEngine(Agent sendAgent) {
            if (composite != null && sendAgent != null) {
                composite.add(sendAgent);
            }
        }

        /**
         * @param sendAgent an HCA's send engine; once this returns the shared thread no longer runs it
         */
        void removeEngine(Agent sendAgent) {
            if (composite != null && sendAgent != null) {
                composite.remove(sendAgent);
            }
        }

        void register(BundleContext ctx, long seed) {
            if (ctx == null) {
                return;
            }
            Dictionary<String, Object> props = new Hashtable<>();
            props.put(PROP_FABRIC, fabric.name());
            props.put(PROP_SEED, seed);
            props.put(PROP_COUNTERS, Boolean.TRUE);
            Supplier<Map<String, Long>> counters = fabric::counterMap;
            services.add(ctx.registerService(Supplier.class.getName(), counters, props));
            if (fabric.mode() == FabricMode.DETERMINISTIC) {
                props.remove(PROP_COUNTERS);
                services.add(ctx.registerService(TimerService.class, fabric.timerService(), props));
            }
        }

        void close() {
            for (ServiceRegistration<?> r : services) {
                try {
                    r.unregister();
                } catch (IllegalStateException gone) {
                    // the bundle is stopping: the framework withdrew it
                }
            }
            if (runner != null) {
                runner.close();
            }
            fabric.close();
        }
    }

    private final Map<String, Lease> leases = new HashMap<>();

    /**
     * @param c an HCA's configuration
     * @return the fabric it names, created with its fabric settings if it is the first; release it with
     *         {@link #release}
     * @throws IllegalArgumentException if the settings are invalid or the name belongs to a fabric made elsewhere
     */
    synchronized Lease acquire(SimHcaConfig c) {
        String settings = "deterministic=" + c.deterministic() + ", seed=" + c.seed() + ", threading=" + c.threading()
                + ", idle=" + c.idle();
        Lease l = leases.get(c.fabric());
        if (l == null) {
            l = create(c, settings);
            l.register(context, c.seed());
            leases.put(c.fabric(), l);
        } else if (!l.settings.equals(settings)) {
            LOG.log(System.Logger.Level.WARNING, "rvt-sim: fabric ''{0}'' already runs with {1}; HCA ''{2}'' asked "
                    + "for {3}, which is ignored", c.fabric(), l.settings, c.name(), settings);
        }
        l.refs++;
        return l;
    }

    private static Lease create(SimHcaConfig c, String settings) {
        boolean shared;
        ThreadingMode fabricThreading;
        switch (c.threading()) {
            case "progress":
                shared = false;
                fabricThreading = ThreadingMode.PROGRESS;
                break;
            case "dedicated":
                shared = false;
                fabricThreading = ThreadingMode.DEDICATED;
                break;
            case "shared":
                shared = true;
                fabricThreading = ThreadingMode.INVOKER;
                break;
            default:
                throw new IllegalArgumentException("threading must be progress, dedicated or shared, got '"
                        + c.threading() + "'");
        }
        IdleStrategy idle = idle(c.idle());
        FabricBuilder b = Fabric.builder(c.fabric()).seed(c.seed()).idleStrategy(idle).threading(fabricThreading);
        if (c.deterministic()) {
            if (shared) {
                throw new IllegalArgumentException("a deterministic fabric runs its HCAs on its own event loop: "
                        + "threading must be progress or dedicated, got 'shared'");
            }
            b.deterministic(c.seed()); // progress: driven by the applications' polls, reproducibly
        } else {
            b.realTime();
        }
        Fabric f;
        try {
            f = b.build();
        } catch (IllegalStateException e) {
            throw new IllegalArgumentException("fabric '" + c.fabric() + "' exists outside OSGi configuration: "
                    + e.getMessage(), e);
        }
        return new Lease(f, shared, idle, settings);
    }

    static IdleStrategy idle(String name) {
        switch (name) {
            case "backoff":
                return new BackoffIdleStrategy();
            case "spin":
                return new BusySpinIdleStrategy();
            default:
                throw new IllegalArgumentException("idle must be backoff or spin, got '" + name + "'");
        }
    }

    /**
     * @param lease a lease from {@link #acquire}; the fabric closes when its last HCA releases it
     */
    void release(Lease lease) {
        boolean last;
        synchronized (this) {
            last = --lease.refs == 0;
            if (last) {
                leases.remove(lease.fabric.name());
            }
        }
        if (last) {
            lease.close();
        }
    }

    /** @return the names of the fabrics in use */
    synchronized List<String> names() {
        return new ArrayList<>(leases.keySet());
    }

    @Deactivate
    void deactivate() {
        List<Lease> all;
        synchronized (this) {
            all = new ArrayList<>(leases.values());
            leases.clear();
        }
        for (Lease l : all) {
            l.close();
        }
    }
}
