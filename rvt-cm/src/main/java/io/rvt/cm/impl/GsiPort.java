package io.rvt.cm.impl;

import io.rvt.api.AddressHandle;
import io.rvt.api.AhAttr;
import io.rvt.api.Gid;
import io.rvt.api.PathMtu;
import io.rvt.api.PortAttr;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.QueuePair;
import java.util.HashMap;
import java.util.Map;

/** One HCA port of a CM: its GSI QP, what the CM needs of the port, and the address handles of the peers it talked to. */
final class GsiPort {
    /** Address handles kept per port; a CM that talked to that many peers starts over. */
    private static final int MAX_AHS = 4096;

    final int num;
    final QueuePair gsi;
    final Gid gid;
    final int lid;
    final int pkey;
    /** Where the port's receive slots start in the CM's buffer. */
    final int recvBase;
    private final ProtectionDomain pd;
    private final Map<RemoteKey, AddressHandle> ahs = new HashMap<>();

    GsiPort(int num, QueuePair gsi, PortAttr attr, Gid gid, int pkey, int recvBase, ProtectionDomain pd) {
        this.num = num;
        this.gsi = gsi;
        this.gid = gid;
        this.lid = attr.lid();
        this.pkey = pkey;
        this.recvBase = recvBase;
        this.pd = pd;
    }

    /**
     * @return the port's active MTU now, queried each time: a RoCE port's follows its interface's MTU (driver-jni's
     *         is the interface's, as a RoCE NIC's), which may change while the CM runs
     */
    PathMtu activeMtu() {
        return gsi.device().queryPort(num, new PortAttr()).activeMtu();
    }

    /** @return true on RoCE, which has no LIDs */
    boolean roce() {
        return lid == 0;
    }

    /** @return the address handle to a peer's GSI QP, made on first use */
    AddressHandle ah(Gid dgid, int dlid) {
        RemoteKey key = new RemoteKey(dgid, dlid);
        AddressHandle ah = ahs.get(key);
        if (ah == null) {
            if (ahs.size() >= MAX_AHS) {
                destroyAhs();
            }
            ah = pd.createAh(new AhAttr().dlid(dlid).portNum(num).global(true).dgid(dgid).hopLimit(64));
            ahs.put(key, ah);
        }
        return ah;
    }

    /** Destroys every address handle of the port. */
    void destroyAhs() {
        for (AddressHandle ah : ahs.values()) {
            QpSetup.quietly(ah::destroyAh);
        }
        ahs.clear();
    }
}
