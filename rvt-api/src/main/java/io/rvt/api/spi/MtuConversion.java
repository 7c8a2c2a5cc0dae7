package io.rvt.api.spi;

import io.rvt.api.QpAttr;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * The path MTU rules a driver hands rvt-core ({@link RvtDriver#mtuConversion()}): rdmavt's
 * {@code get_pmtu_from_attr}, {@code mtu_from_qp} and {@code mtu_to_path_mtu} pointers of
 * {@code struct rvt_driver_provided}. Required by {@link Verb#MODIFY_QP}: registration refuses a driver that hands in
 * none unless it declines that verb.
 */
@ConsumerType
public interface MtuConversion {
    /**
     * Mirrors {@code get_pmtu_from_attr}: the path MTU to use for a {@code modifyQp} with {@code PATH_MTU}, typically
     * the smaller of the requested and the port's active MTU. All three locks held.
     *
     * @param rdi the device
     * @param qp the QP
     * @param attr the modify attributes
     * @return an {@code ib_mtu} value ({@link io.rvt.api.PathMtu#value()}), or negative to fail the modify with
     *         {@code EINVAL}
     */
    int getPmtuFromAttr(DriverDevice rdi, DriverQp qp, QpAttr attr);

    /**
     * Mirrors {@code mtu_from_qp}: the MTU in bytes for an {@code ib_mtu} value chosen by {@link #getPmtuFromAttr}.
     * All three locks held.
     *
     * @param rdi the device
     * @param qp the QP
     * @param pmtu an {@code ib_mtu} value
     * @return the MTU in bytes, a power of two
     */
    int mtuFromQp(DriverDevice rdi, DriverQp qp, int pmtu);

    /**
     * Mirrors {@code mtu_to_path_mtu}: bytes to an {@code ib_mtu} value, for {@code queryQp}. No lock held.
     *
     * @param mtu bytes
     * @return the {@code ib_mtu} value
     */
    int mtuToPathMtu(int mtu);
}
