package io.rvt.core.qp;

import io.rvt.api.DeviceAttributes;
import io.rvt.api.QpInitAttr;
import io.rvt.core.base.Errors;
import io.rvt.core.cq.RvtCq;
import io.rvt.core.srq.RvtSrq;

/**
 * The checks {@code rvt_create_qp} makes before it allocates anything: the create flags, the queue sizes against the
 * device's limits, the SRQ, the QP type and its port, the CQs. Each refusal names the attribute and its value.
 */
final class QpCreateCheck {
    private QpCreateCheck() {
    }

    /**
     * @param dev the device
     * @param init the request
     * @return the receive SGEs per WQE in effect (the SRQ's with an SRQ)
     */
    static int check(QpDevice dev, QpInitAttr init) {
            if (init == null) {
                throw Errors.inval("createQp: init is null");
            }
            dev.checkAlive();
            dev.checkVerb(io.rvt.api.spi.Verb.CREATE_QP);
            DeviceAttributes props = dev.props();
            if ((init.createFlags() & ~QpInitAttr.CREATE_NETDEV_USE) != 0) {
                throw Errors.notsupp("createQp: create flags 0x" + Integer.toHexString(init.createFlags())
                        + " are not supported (only NETDEV_USE)");
            }
            if (init.cap().maxSendSge() > props.maxSendSge()) {
                throw Errors.inval("createQp: maxSendSge " + init.cap().maxSendSge() + " exceeds the device's "
                        + props.maxSendSge());
            }
            if (init.cap().maxSendWr() > props.maxQpWr()) {
                throw Errors.inval("createQp: maxSendWr " + init.cap().maxSendWr() + " exceeds the device's "
                        + props.maxQpWr());
            }
            int recvMaxSge;
            if (init.srq() == null) {
                if (init.cap().maxRecvSge() > props.maxRecvSge()) {
                    throw Errors.inval("createQp: maxRecvSge " + init.cap().maxRecvSge() + " exceeds the device's "
                            + props.maxRecvSge());
                }
                if (init.cap().maxRecvWr() > props.maxQpWr()) {
                    throw Errors.inval("createQp: maxRecvWr " + init.cap().maxRecvWr() + " exceeds the device's "
                            + props.maxQpWr());
                }
                if (init.cap().maxSendSge() + init.cap().maxSendWr() + init.cap().maxRecvSge()
                        + init.cap().maxRecvWr() == 0) {
                    throw Errors.inval("createQp: every queue size in cap is 0");
                }
                recvMaxSge = init.cap().maxRecvSge();
            } else {
                if (!(init.srq() instanceof RvtSrq) || ((RvtSrq) init.srq()).device() != dev) {
                    throw Errors.inval("createQp: srq belongs to another device");
                }
                recvMaxSge = ((RvtSrq) init.srq()).rq().maxSge();
            }
            switch (init.qpType()) {
                case SMI:
                case GSI:
                    if (init.portNum() < 1 || init.portNum() > dev.portCount()) {
                        throw Errors.inval("createQp: " + init.qpType() + " QP needs a port in 1.." + dev.portCount()
                                + ", got " + init.portNum());
                    }
                    break;
                case RC:
                case UC:
                case UD:
                    break;
                default:
                    throw Errors.notsupp("createQp: QP type " + init.qpType() + " is not supported");
            }
            if (!(init.sendCq() instanceof RvtCq) || ((RvtCq) init.sendCq()).device() != dev) {
                throw Errors.inval("createQp: sendCq is missing or belongs to another device");
            }
            if (!(init.recvCq() instanceof RvtCq) || ((RvtCq) init.recvCq()).device() != dev) {
                throw Errors.inval("createQp: recvCq is missing or belongs to another device");
            }
            return recvMaxSge;
    }
}
