package io.rvt.core.qp;

import io.rvt.api.VerbsException;
import io.rvt.api.spi.DriverPort;
import io.rvt.core.mr.MrDevice;

/**
 * The device as QPs see it: besides what regions see, its ports, the QP table and the QPN allocator, with rvt-core's
 * own types. Implemented by {@code io.rvt.core.QpDevice}, which builds the ports and tables.
 */
public interface QpDevice extends MrDevice {
    /** @return the QP table ({@code rdi->qp_dev->qp_table}) */
    RvtQpTable qpTable();

    /** @return the QPN allocator ({@code rdi->qp_dev->qpn_table}) */
    QpnTable qpnTable();

    /**
     * @param portNum the port, 1-based
     * @return the port
     * @throws VerbsException EINVAL if the port does not exist
     */
    RvtIbport checkedPort(int portNum);

    @Override
    RvtIbport port(int portNum);

    @Override
    RvtQp lookupQpn(DriverPort port, int qpn);

    @Override
    RvtQp lookupQpnAndRetain(DriverPort port, int qpn);
}
