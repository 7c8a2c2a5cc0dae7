package io.rvt.api.spi;

import io.rvt.api.Errno;
import io.rvt.api.VerbsException;

/**
 * Registration refused a driver ({@code rvt_register_device} returning {@code -EINVAL}): the message names the
 * driver, and the verb and missing callback or the parameter and its bad value, e.g.
 * {@code driver 'sim': QUERY_GID needs callback getGuidBe (get_guid_be)}. Nothing was allocated.
 */
public class DriverValidationException extends VerbsException {
    private static final long serialVersionUID = 1L;

    /** The name of the driver that was refused. */
    private final String driverName;

    /**
     * @param driverName the driver's name
     * @param problem what is wrong
     */
    public DriverValidationException(String driverName, String problem) {
        super(Errno.EINVAL, "driver '" + driverName + "': " + problem);
        this.driverName = driverName;
    }

    /** @return the name of the refused driver */
    public String driverName() {
        return driverName;
    }
}
