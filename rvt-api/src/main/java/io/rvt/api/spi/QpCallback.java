package io.rvt.api.spi;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * The callback of {@link DriverDevice#forEachQp} ({@code rvt_qp_iter}'s {@code cb}).
 */
@ConsumerType
@FunctionalInterface
public interface QpCallback {
    /**
     * Called with a reference held on {@code qp}; may take the QP's locks.
     *
     * @param qp the QP
     * @param v the cookie given to {@code forEachQp}
     */
    void accept(DriverQp qp, long v);
}
