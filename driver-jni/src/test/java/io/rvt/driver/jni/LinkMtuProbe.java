package io.rvt.driver.jni;

import io.rvt.api.Device;
import io.rvt.api.PathMtu;
import io.rvt.api.PortAttr;
import io.rvt.api.QpAttr;
import io.rvt.api.QpAttrMask;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.core.RvtDevice;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.Verbs;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The child JVM of {@link NetnsLinkMtuIT}, run inside its network namespace: one HCA per argument
 * ({@code <address>} or {@code <address>/<max-mtu-bytes>}, the builder's MTU), then, for each {@code query} on stdin,
 * one line per HCA: {@code PORT <i> ACTIVE <bytes> MAX <bytes> QP <bytes>}, the port's active and max MTU
 * ({@code queryPort}) and the path MTU an RC QP of that port has after RTR asked for 4096 ({@code queryQp}). Ends at
 * end of input.
 */
public final class LinkMtuProbe {
    private LinkMtuProbe() {
    }

    /**
     * @param args the HCAs' addresses, each with an optional {@code /<max-mtu-bytes>}
     * @throws Exception on any failure (the parent reads the exit status and stderr)
     */
    public static void main(String[] args) throws Exception {
        List<RvtDevice> devs = new ArrayList<>();
        try {
            for (int i = 0; i < args.length; i++) {
                String[] a = args[i].split("/");
                JniDriverBuilder b = JniDriver.builder().name("probe" + i).address(a[0]).udpPort(0);
                if (a.length > 1) {
                    b.mtu(PathMtu.ofBytes(Integer.parseInt(a[1])));
                }
                devs.add(RvtDevice.register(b.build()));
            }
            Verbs verbs = new Verbs(new JniFixture(0, "127.0.0.1"));
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            System.out.println("READY");
            System.out.flush();
            while (in.readLine() != null) {
                for (int i = 0; i < devs.size(); i++) {
                    Device d = devs.get(i);
                    PortAttr pa = d.queryPort(1, new PortAttr());
                    System.out.println("PORT " + i + " ACTIVE " + pa.activeMtu().bytes() + " MAX "
                            + pa.maxMtu().bytes() + " QP " + rtrPathMtu(verbs, d).bytes());
                }
                System.out.flush();
            }
        } finally {
            devs.forEach(RvtDevice::unregister);
        }
    }

    /** An RC QP taken to RTR with path MTU 4096 (aimed at its own GID: nothing is sent): the path MTU it got. */
    private static PathMtu rtrPathMtu(Verbs verbs, Device d) {
        Endpoint e = verbs.endpoint(d, QpType.RC, 4096);
        e.qp.modifyQp(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(Endpoint.ALL_ACCESS),
                QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
        QpAttr rtr = new QpAttr().qpState(QpState.RTR).pathMtu(PathMtu.MTU_4096).destQpNum(1).rqPsn(0)
                .maxDestRdAtomic(1).minRnrTimer(1);
        rtr.ahAttr().clear().portNum(1).dgid(d.queryGid(1, 0)).sgidIndex(0).hopLimit(64);
        e.qp.modifyQp(rtr, QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU,
                QpAttrMask.DEST_QPN, QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER));
        QpAttr now = new QpAttr();
        e.qp.queryQp(now);
        e.qp.destroyQp();
        return now.pathMtu();
    }
}
