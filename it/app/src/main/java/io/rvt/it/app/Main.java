package io.rvt.it.app;

import io.rvt.api.Device;
import io.rvt.api.DeviceRegistry;
import io.rvt.api.Rvt;

/**
 * The application without OSGi: finds every driver on the module path with {@code Rvt.open()} (rvt-core's
 * {@code ServiceLoader} discovery) and runs checked RC traffic between two QPs of each device. Prints one line per
 * device and per run; exits 0 if every device passed, 1 if there was none or one failed.
 */
public final class Main {
    private Main() {
    }

    /**
     * @param args optional: the number of messages per device (default 100)
     */
    public static void main(String[] args) {
        int messages = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        int failed = 0;
        try (DeviceRegistry rvt = Rvt.open()) {
            for (String refused : rvt.refused()) {
                System.out.println("refused: " + refused);
            }
            if (rvt.devices().isEmpty()) {
                System.out.println("no device found");
                failed++;
            }
            for (Device d : rvt.devices()) {
                System.out.println("device " + d.name() + " (driver " + d.driverName() + ", module "
                        + d.getClass().getModule().getName() + ")");
                try {
                    System.out.println(RcTraffic.run(d, d, messages));
                } catch (RuntimeException e) {
                    System.out.println("failed: " + d.name() + ": " + e);
                    failed++;
                }
            }
        }
        // Drivers may leave non-daemon engine threads until their device is removed; exit explicitly either way.
        System.exit(failed == 0 ? 0 : 1);
    }
}
