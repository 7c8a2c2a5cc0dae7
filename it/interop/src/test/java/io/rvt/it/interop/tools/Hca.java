package io.rvt.it.interop.tools;

import io.rvt.api.Device;
import io.rvt.api.PathMtu;
import io.rvt.api.spi.DriverRegistry;
import io.rvt.driver.jni.JniDriver;
import io.rvt.driver.jni.JniDriverBuilder;

/**
 * The driver-jni HCA a tool runs on as a program: one port on {@code --bind}'s address and UDP 4791, registered in a
 * plain device registry, as the launcher's {@code --driver jni --no-osgi} builds it.
 */
final class Hca implements AutoCloseable {
    private final JniDriver driver;
    private final DriverRegistry registry;
    private final Device device;

    private Hca(JniDriver driver) {
        this.driver = driver;
        this.registry = DriverRegistry.create();
        Device d;
        try {
            d = registry.register(driver);
        } catch (RuntimeException e) {
            registry.close();
            driver.close();
            throw e;
        }
        this.device = d;
    }

    /**
     * @param address the IP address to bind
     * @param mtuBytes the port's MTU, or 0 for driver-jni's default
     * @return the registered HCA
     * @throws io.rvt.driver.jni.UdpException if the socket cannot be bound (naming the address and the errno)
     */
    static Hca open(String address, int mtuBytes) {
        JniDriverBuilder b = JniDriver.builder().name("rvt0").address(address);
        if (mtuBytes > 0) {
            b.mtu(PathMtu.ofBytes(mtuBytes));
        }
        return new Hca(b.build());
    }

    /** @return the driver */
    JniDriver driver() {
        return driver;
    }

    /** @return the registered device */
    Device device() {
        return device;
    }

    @Override
    public void close() {
        registry.close();
        driver.close();
    }
}
