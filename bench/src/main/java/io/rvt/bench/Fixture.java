package io.rvt.bench;

import io.rvt.api.AccessFlag;
import io.rvt.api.CompletionQueue;
import io.rvt.api.PathMtu;
import io.rvt.api.ProtectionDomain;
import io.rvt.cm.QpOptions;
import io.rvt.core.RvtDevice;

/**
 * Builds a device, a PD and a CQ for the benchmarks, and RC QPs of that device connected through rvt-cm (its GSI QP
 * carries the MADs through rvt-core's loopback, which {@link BenchDriver} runs for it in either mode).
 */
final class Fixture implements AutoCloseable {
    final RvtDevice device;
    final ProtectionDomain pd;
    final CompletionQueue cq;

    Fixture(BenchDriver.Mode mode) {
        device = RvtDevice.register(new BenchDriver(mode));
        pd = device.allocPd();
        cq = device.createCq(4096, 0, null, null);
    }

    /**
     * @return two RC QPs of the device connected to each other (both on {@link #cq}), made once per trial, outside
     *         what is measured
     */
    CmPair connectedPair() {
        return new CmPair(device, rcOptions(), device, rcOptions(), Thread::onSpinWait);
    }

    private QpOptions rcOptions() {
        int all = AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ,
                AccessFlag.REMOTE_ATOMIC);
        QpOptions o = new QpOptions().pd(pd).cq(cq).accessFlags(all).pathMtu(PathMtu.MTU_4096).responderResources(16)
                .initiatorDepth(16).minRnrTimer(1).localAckTimeout(14).retryCount(7).rnrRetryCount(7);
        o.cap().maxSendWr(256).maxRecvWr(256).maxSendSge(1).maxRecvSge(1);
        return o;
    }

    @Override
    public void close() {
        device.unregister();
    }
}
