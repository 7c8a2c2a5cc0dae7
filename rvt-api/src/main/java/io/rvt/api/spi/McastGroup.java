package io.rvt.api.spi;

import io.rvt.api.Gid;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A multicast group of a port ({@code struct rvt_mcast}) as {@link DriverPort#mcastFind} returns it: retained, so the
 * caller must {@link #release()} it when done delivering.
 */
@ProviderType
public interface McastGroup {
    /** @return the multicast GID */
    Gid mgid();

    /** @return the multicast LID */
    int mlid();

    /**
     * The QPs attached when this snapshot was taken (an immutable array shared with the core: never modify it).
     *
     * @return the attached QPs
     */
    DriverQp[] qps();

    /** Drops the reference {@code rvt_mcast_find} took; detach waits for it. */
    void release();
}
