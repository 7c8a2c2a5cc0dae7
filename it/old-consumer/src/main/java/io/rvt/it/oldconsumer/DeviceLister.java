package io.rvt.it.oldconsumer;

import io.rvt.api.Device;
import java.util.List;

/** Uses the verbs API, so that the bundle imports {@code io.rvt.api}; its manifest asks for version 3.x. */
public final class DeviceLister {
    private DeviceLister() {
    }

    /**
     * @param devices devices
     * @return their names
     */
    public static List<String> names(List<Device> devices) {
        return devices.stream().map(Device::name).toList();
    }
}
