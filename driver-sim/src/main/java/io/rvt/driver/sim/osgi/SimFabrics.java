package io.rvt.driver.sim.osgi;

import io.rvt.driver.sim.clock.Agent;
import io.rvt.driver.sim.clock.AgentRunner;
import io.rvt.driver.sim.clock.BackoffIdleStrategy;
import io.rvt.driver.sim.clock.BusySpinIdleStrategy;
import io.rvt.driver.sim.clock.DynamicCompositeAgent;
import io.rvt.driver.sim.clock.IdleStrategy;
import io.rvt.driver.sim.fabric.Fabric;
import io.rvt.driver.sim.fabric.FabricBuilder;
import io.rvt.driver.sim.fabric.ThreadingMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

/**
 * The fabrics of the configured HCAs, shared by name and reference-counted: the first HCA that names a fabric
 * creates it with its fabric settings, the last one to go closes it (its thread stops). In {@code shared} threading
 * one thread runs the fabric and the send engines of all its HCAs. Nothing here is static: stopping driver-sim's
 * bundle closes every fabric it made.
 */
@Component(service = SimFabrics.class)
public final class SimFabrics {
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

        void close() {
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
        switch (c.threading()) {
            case "dedicated":
                shared = false;
                break;
            case "shared":
                shared = true;
                break;
            default:
                throw new IllegalArgumentException("threading must be dedicated or shared, got '" + c.threading()
                        + "'");
        }
        IdleStrategy idle = idle(c.idle());
        FabricBuilder b = Fabric.builder(c.fabric()).seed(c.seed()).idleStrategy(idle)
                .threading(shared ? ThreadingMode.INVOKER : ThreadingMode.DEDICATED);
        if (c.deterministic()) {
            if (shared) {
                throw new IllegalArgumentException("a deterministic fabric runs its HCAs on its own event loop: "
                        + "threading must be dedicated, got 'shared'");
            }
            b.deterministic(c.seed()).threading(ThreadingMode.DEDICATED);
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
