package io.rvt.driver.sim.fabric;

import java.util.Objects;
import java.util.SplittableRandom;

/**
 * A port's link to the switch: its timing ({@link LinkModel}), its faults ({@link FaultConfig}, its own or the
 * fabric's default), and its state, up or down. While down, frames the port sends and frames on their way to it are
 * dropped ({@link DropCause#LINK_DOWN}), including frames that were on the link when it went down; the port's
 * {@link LinkListener} is told of each change. Settings may change at any time from any thread; they apply to frames
 * that reach the link afterwards.
 */
public final class Link {
    private final FabricPort port;
    /** Link state; written under {@code this} by the thread that changes it, read by the delivery thread. */
    private volatile boolean up = true;
    /** Incremented by every {@link #down()}; a frame whose recorded epoch differs was on the link when it went down. */
    private volatile int epoch;
    private volatile LinkModel model;
    /** The link's own faults, or null for the fabric's default. */
    private volatile FaultConfig faults;

    // Written only by the fabric's delivery thread.
    /** When the port's transmit direction is free again (virtual or real ns). */
    long txFreeAt = Long.MIN_VALUE;
    /** When the switch's output to this port is free again. */
    long egressFreeAt = Long.MIN_VALUE;
    /** Fault draws for frames delivered over this link; split from the fabric's seeded generator at attach. */
    final SplittableRandom random;

    Link(FabricPort port, LinkModel model, FaultConfig faults, SplittableRandom random) {
        this.port = port;
        this.model = model;
        this.faults = faults;
        this.random = random;
    }

    /** @return the port this link belongs to */
    public FabricPort port() {
        return port;
    }

    /** @return true if the link is up */
    public boolean isUp() {
        return up;
    }

    /** Takes the link down (if up) and tells the port's listener on this thread. */
    public void down() {
        synchronized (this) {
            if (!up) {
                return;
            }
            epoch++;
            up = false;
        }
        port.fabric().onLinkChange(port, false);
    }

    /** Brings the link up (if down) and tells the port's listener on this thread. */
    public void up() {
        synchronized (this) {
            if (up) {
                return;
            }
            up = true;
        }
        port.fabric().onLinkChange(port, true);
    }

    /**
     * Takes the link down at virtual time {@code atNanos} (deterministic mode: an event on the fabric's loop).
     *
     * @param atNanos the virtual time
     * @throws IllegalStateException in real-time mode
     */
    public void downAt(long atNanos) {
        port.fabric().loop().scheduleAt(atNanos, this::down);
    }

    /**
     * Brings the link up at virtual time {@code atNanos} (deterministic mode: an event on the fabric's loop).
     *
     * @param atNanos the virtual time
     * @throws IllegalStateException in real-time mode
     */
    public void upAt(long atNanos) {
        port.fabric().loop().scheduleAt(atNanos, this::up);
    }

    /** @return the link's timing */
    public LinkModel model() {
        return model;
    }

    /**
     * @param model the new timing, for frames that reach the link from now on
     */
    public void model(LinkModel model) {
        this.model = Objects.requireNonNull(model, "model");
    }

    /** @return the faults in effect: the link's own, or the fabric's default */
    public FaultConfig faults() {
        FaultConfig f = faults;
        return f != null ? f : port.fabric().defaultFaults();
    }

    /** @return true if the link has its own faults rather than the fabric's default */
    public boolean hasOwnFaults() {
        return faults != null;
    }

    /**
     * @param faults the link's own faults, or null to follow the fabric's default
     */
    public void faults(FaultConfig faults) {
        this.faults = faults;
        port.fabric().burstRulesChanged();
    }

    int epoch() {
        return epoch;
    }

    @Override
    public String toString() {
        return "Link{" + port.name() + (up ? ", up" : ", down") + ", " + model + ", " + faults() + '}';
    }
}
