package io.rvt.launcher;

import io.rvt.api.Device;
import java.util.List;

/** A host without devices: for what needs a host but no network (errors, a {@link Connector}'s waits). */
final class EmptyHost implements Host {
    @Override
    public List<Device> devices() {
        return List.of();
    }

    @Override
    public String description() {
        return "no devices here";
    }

    @Override
    public DriverKind driver() {
        return DriverKind.SIM;
    }

    @Override
    public void close() {
    }
}
