package io.rvt.core;

import io.rvt.api.Device;
import io.rvt.api.DeviceClient;
import io.rvt.api.Errno;
import io.rvt.api.VerbsException;
import io.rvt.core.base.Errors;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The clients of one device ({@code ib_register_client} / {@code ib_unregister_client}, per device) and the part of
 * a removal that tells them ({@code disable_device}'s loop over the clients, newest first). Each registration's
 * client is called at most once: the removal and a {@code close} race for one flag, and whichever takes it first
 * decides. The clients run outside this object's lock, so that a client can deregister itself or others.
 */
final class DeviceClients {
    private static final System.Logger LOG = System.getLogger(DeviceClients.class.getName());

    private final Device device;
    /** Registrations in registration order; guarded by {@code this}. */
    private final List<Entry> entries = new ArrayList<>();
    /** Set once the removal began: no client is taken after that. Guarded by {@code this}. */
    private boolean removing;
    private final AtomicLong failures = new AtomicLong();

    DeviceClients(Device device) {
        this.device = device;
    }

    /** One registration: its client runs once, unless it was closed before the removal reached it. */
    private final class Entry implements DeviceClient.Registration {
        final DeviceClient client;
        /** Taken by the removal (to call the client) or by {@link #close} (so that it is not called). */
        final AtomicBoolean done = new AtomicBoolean();

        Entry(DeviceClient client) {
            this.client = client;
        }

        @Override
        public void close() {
            if (done.compareAndSet(false, true)) {
                synchronized (DeviceClients.this) {
                    entries.remove(this);
                }
            }
        }

        @Override
        public String toString() {
            return "DeviceClient.Registration[" + device.name() + ", " + client + "]";
        }
    }

    /**
     * @param client the client
     * @return its registration
     * @throws VerbsException ENODEV once the removal began; EINVAL for a null client
     */
    DeviceClient.Registration register(DeviceClient client) {
        if (client == null) {
            throw Errors.inval("registerClient: client is null (device " + device.name() + ")");
        }
        Entry e = new Entry(client);
        synchronized (this) {
            if (removing) {
                throw new VerbsException(Errno.ENODEV, "device " + device.name() + " is removed or being removed: "
                        + "its clients were told already, a new one would never be");
            }
            entries.add(e);
        }
        return e;
    }

    /**
     * Begins the removal: takes no more clients and calls every registered one, newest first, on this thread. A
     * client that throws is logged and counted, and the next one runs.
     *
     * @return false if a removal had begun already (nothing is called again)
     */
    boolean removeAll() {
        List<Entry> all;
        synchronized (this) {
            if (removing) {
                return false;
            }
            removing = true;
            all = new ArrayList<>(entries);
            entries.clear();
        }
        for (int i = all.size() - 1; i >= 0; i--) {
            Entry e = all.get(i);
            if (!e.done.compareAndSet(false, true)) {
                continue; // closed meanwhile
            }
            try {
                e.client.remove(device);
            } catch (RuntimeException | Error ex) {
                if (ex instanceof VirtualMachineError) {
                    throw ex;
                }
                failures.incrementAndGet();
                LOG.log(System.Logger.Level.WARNING, "rvt: a client of device " + device.name()
                        + " failed in its remove callback; the removal goes on", ex);
            }
        }
        return true;
    }

    /** @return how many clients threw from their remove callback */
    long failures() {
        return failures.get();
    }

    /** @return the clients registered and not yet called or closed */
    synchronized int size() {
        return entries.size();
    }
}
