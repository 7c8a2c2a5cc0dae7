package io.rvt.api.spi;

import io.rvt.api.AddressHandle;
import io.rvt.api.AhAttr;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The driver's view of an address handle ({@code struct rvt_ah}): its attributes and the two values the driver fills
 * in {@link RvtDriver#notifyNewAh}: the virtual lane and the log2 of the path MTU that UD posts use for
 * {@code lpsn}.
 */
@ProviderType
public interface DriverAh extends AddressHandle {
    /** @return the live attributes (do not modify) */
    AhAttr attr();

    /** @return the virtual lane ({@code vl}) */
    int vl();

    /**
     * @param vl the virtual lane
     */
    void vl(int vl);

    /** @return log2 of the path MTU in bytes ({@code log_pmtu}; 0 if the driver did not set it) */
    int logPmtu();

    /**
     * @param logPmtu log2 of the path MTU in bytes
     */
    void logPmtu(int logPmtu);
}
