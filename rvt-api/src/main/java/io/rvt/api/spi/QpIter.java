package io.rvt.api.spi;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A cursor over every QP of a device ({@code struct rvt_qp_iter}): each port's QP0 and QP1, then the hash buckets.
 * rdmavt's special-QP walk visits the wrong QPs on multi-port devices; rvt visits, for each port, slot 0 then 1.
 * QPs created or destroyed during the walk may or may not be seen.
 */
@ProviderType
public interface QpIter {
    /**
     * Mirrors {@code rvt_qp_iter_next}.
     *
     * @return true if {@link #qp()} now holds the next QP, false at the end
     */
    boolean next();

    /** @return the current QP */
    DriverQp qp();
}
