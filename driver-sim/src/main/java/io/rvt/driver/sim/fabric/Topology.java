package io.rvt.driver.sim.fabric;

import io.rvt.api.Gid;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Who is where on a {@link Fabric}: its ports by unicast LID and by GID, the members of each multicast group and the
 * active partitions. Changed under {@link #lock} (the fabric's lock: attach, detach, joins, partitions); the
 * forwarding path reads ports, groups and partitions without it.
 */
final class Topology {
    private static final VarHandle PORTS = MethodHandles.arrayElementVarHandle(FabricPort[].class);
    private static final VarHandle GROUPS = MethodHandles.arrayElementVarHandle(FabricPort[][].class);
    private static final FabricPort[] NO_PORTS = new FabricPort[0];

    /** Guards every change here, and the fabric's attach and close. */
    final Object lock = new Object();
    private final Fabric fabric;
    /** Port by unicast LID; written under {@link #lock} with release, read with acquire. */
    private final FabricPort[] byLid = new FabricPort[Fabric.UNICAST_LAST + 1];
    /** Members by multicast LID - 0xC000; copy-on-write arrays, written under {@link #lock} with release. */
    private final FabricPort[][] groups = new FabricPort[Fabric.MULTICAST_LAST - Fabric.MULTICAST_FIRST + 1][];
    private final Map<Gid, FabricPort> byGid = new HashMap<>();
    /** Active partitions; copy-on-write under {@link #lock}. */
    private volatile Partition[] partitions = new Partition[0];
    private int nextAutoLid = Fabric.UNICAST_FIRST;

    Topology(Fabric fabric) {
        this.fabric = fabric;
    }

    /** @return the port with unicast LID {@code lid}, or null */
    FabricPort port(int lid) {
        if (lid < Fabric.UNICAST_FIRST || lid > Fabric.UNICAST_LAST) {
            return null;
        }
        return (FabricPort) PORTS.getAcquire(byLid, lid); // acquire: pairs with the release in add()/remove()
    }

    /** @return the port with that GID, or null */
    FabricPort port(Gid gid) {
        synchronized (lock) {
            return byGid.get(gid);
        }
    }

    /** @return the attached ports, by LID */
    List<FabricPort> ports() {
        List<FabricPort> list = new ArrayList<>();
        for (int lid = Fabric.UNICAST_FIRST; lid <= Fabric.UNICAST_LAST; lid++) {
            FabricPort p = port(lid);
            if (p != null) {
                list.add(p);
            }
        }
        return list;
    }

    /** Under {@link #lock}: {@code lid} (0: the next free one) if no port has it. */
    int claimLid(int lid) {
        int l = lid != 0 ? lid : nextFreeLid();
        if (byLid[l] != null) {
            throw new IllegalArgumentException("fabric '" + fabric.name() + "': lid=0x" + Integer.toHexString(l)
                    + " is taken by " + byLid[l].name());
        }
        return l;
    }

    private int nextFreeLid() {
        for (int i = 0; i < Fabric.UNICAST_LAST; i++) {
            int lid = nextAutoLid;
            nextAutoLid = lid == Fabric.UNICAST_LAST ? Fabric.UNICAST_FIRST : lid + 1;
            if (byLid[lid] == null) {
                return lid;
            }
        }
        throw new IllegalStateException("fabric '" + fabric.name() + "' has no free unicast LID");
    }

    /** Under {@link #lock}: throws if a port has {@code gid}. */
    void checkGidFree(Gid gid) {
        if (byGid.containsKey(gid)) {
            throw new IllegalArgumentException("fabric '" + fabric.name() + "': gid " + gid + " is taken by "
                    + byGid.get(gid).name());
        }
    }

    /** Under {@link #lock}: the port joins the tables, where frames find it from now on. */
    void add(FabricPort p) {
        byGid.put(p.gid(), p);
        PORTS.setRelease(byLid, p.lid(), p); // release: pairs with the acquire in port(int)
    }

    /** Takes {@code p} out of every table; false if it was closed already. */
    boolean remove(FabricPort p) {
        synchronized (lock) {
            if (p.closed) {
                return false;
            }
            for (int off = p.groups.nextSetBit(0); off >= 0; off = p.groups.nextSetBit(off + 1)) {
                removeMember(p, off);
            }
            p.groups.clear();
            byGid.remove(p.gid());
            PORTS.setRelease(byLid, p.lid(), null);
            p.closed = true;
            return true;
        }
    }

    void join(FabricPort p, int mlid) {
        checkMulticast(mlid);
        synchronized (lock) {
            int off = mlid - Fabric.MULTICAST_FIRST;
            if (p.closed || p.groups.get(off)) {
                return;
            }
            FabricPort[] old = groups[off] != null ? groups[off] : NO_PORTS;
            FabricPort[] a = Arrays.copyOf(old, old.length + 1);
            a[old.length] = p;
            GROUPS.setRelease(groups, off, a); // release: pairs with the acquire in members()
            p.groups.set(off);
        }
    }

    void leave(FabricPort p, int mlid) {
        checkMulticast(mlid);
        synchronized (lock) {
            int off = mlid - Fabric.MULTICAST_FIRST;
            if (p.groups.get(off)) {
                removeMember(p, off);
                p.groups.clear(off);
            }
        }
    }

    private void removeMember(FabricPort p, int off) {
        FabricPort[] old = groups[off];
        FabricPort[] a = new FabricPort[old.length - 1];
        int n = 0;
        for (FabricPort q : old) {
            if (q != p) {
                a[n++] = q;
            }
        }
        GROUPS.setRelease(groups, off, a.length == 0 ? null : a);
    }

    /** @return the members of multicast group {@code mlid}, in join order (the array itself: do not change it) */
    FabricPort[] members(int mlid) {
        FabricPort[] a = (FabricPort[]) GROUPS.getAcquire(groups, mlid - Fabric.MULTICAST_FIRST);
        return a != null ? a : NO_PORTS;
    }

    static void checkMulticast(int mlid) {
        if (mlid < Fabric.MULTICAST_FIRST || mlid > Fabric.MULTICAST_LAST) {
            throw new IllegalArgumentException("mlid=0x" + Integer.toHexString(mlid)
                    + " not a multicast LID in [0xc000, 0xfffe]");
        }
    }

    Partition addPartition(Collection<FabricPort> a, Collection<FabricPort> b, boolean both) {
        BitSet from = indexes(a);
        BitSet to = indexes(b);
        String description = names(a) + (both ? " <-/-> " : " -/-> ") + names(b);
        Partition p = new Partition(this, from, to, both, description);
        synchronized (lock) {
            Partition[] old = partitions;
            Partition[] n = Arrays.copyOf(old, old.length + 1);
            n[old.length] = p;
            partitions = n;
        }
        return p;
    }

    private BitSet indexes(Collection<FabricPort> ports) {
        BitSet bits = new BitSet();
        for (FabricPort p : ports) {
            if (p.fabric() != fabric) {
                throw new IllegalArgumentException("port " + p.name() + " is not on fabric '" + fabric.name() + "'");
            }
            bits.set(p.index());
        }
        return bits;
    }

    private static String names(Collection<FabricPort> ports) {
        StringBuilder sb = new StringBuilder("[");
        for (FabricPort p : ports) {
            if (sb.length() > 1) {
                sb.append(", ");
            }
            sb.append(p.name());
        }
        return sb.append(']').toString();
    }

    /** @return the active partitions (the array itself: do not change it) */
    Partition[] partitions() {
        return partitions;
    }

    void heal(Partition p) {
        synchronized (lock) {
            Partition[] old = partitions;
            List<Partition> n = new ArrayList<>(old.length);
            for (Partition q : old) {
                if (q != p) {
                    n.add(q);
                }
            }
            partitions = n.toArray(new Partition[0]);
        }
    }

    boolean partitioned(FabricPort src, FabricPort dst) {
        Partition[] ps = partitions;
        for (Partition p : ps) {
            if (p.blocks(src.index(), dst.index())) {
                return true;
            }
        }
        return false;
    }
}
