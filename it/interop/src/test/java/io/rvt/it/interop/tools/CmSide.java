package io.rvt.it.interop.tools;

import io.rvt.api.AccessFlag;
import io.rvt.api.CompletionChannel;
import io.rvt.api.CompletionQueue;
import io.rvt.api.Device;
import io.rvt.api.Gid;
import io.rvt.api.MemoryRegion;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.SharedReceiveQueue;
import io.rvt.api.SrqInitAttr;
import io.rvt.cm.ConnectionManager;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The verbs objects of one rdma_cm tool's side and their teardown: the CM handle, a PD, CQs and registered
 * buffers, released in reverse order (connections first, by their owner).
 */
final class CmSide implements AutoCloseable {
    private final Device device;
    private final ConnectionManager cm;
    private final ProtectionDomain pd;
    private final List<CompletionQueue> cqs = new ArrayList<>();
    private final List<MemoryRegion> mrs = new ArrayList<>();
    private final List<SharedReceiveQueue> srqs = new ArrayList<>();
    private CompletionChannel channel;

    /**
     * @param device the HCA
     */
    CmSide(Device device) {
        this.device = device;
        this.cm = ConnectionManager.of(device);
        this.pd = device.allocPd();
    }

    /** @return the CM */
    ConnectionManager cm() {
        return cm;
    }

    /** @return the PD */
    ProtectionDomain pd() {
        return pd;
    }

    /**
     * @param entries its size
     * @return a new CQ
     */
    CompletionQueue cq(int entries) {
        CompletionQueue cq = device.createCq(entries, 0, null, null);
        cqs.add(cq);
        return cq;
    }

    /**
     * A CQ on the side's completion channel ({@code ibv_create_comp_channel}, made with the first), as rping makes
     * its one CQ; destroyed before the channel.
     *
     * @param entries its size
     * @return a new CQ whose events go to {@link #channel()}
     */
    CompletionQueue eventCq(int entries) {
        if (channel == null) {
            channel = device.createCompChannel();
        }
        CompletionQueue cq = device.createCq(entries, 0, channel, null, null);
        cqs.add(cq);
        return cq;
    }

    /** @return the completion channel of {@link #eventCq}'s CQs, or null before the first */
    CompletionChannel channel() {
        return channel;
    }

    /**
     * A receive queue a server posts to before it accepts: rvt-cm's {@code acceptAsync} creates the QP and sends the
     * REP in one call, so a receive posted on the QP afterwards may come after the client's first SEND (an RNR NAK,
     * counted by rxe as {@code rcvd_rnr_err}); the Linux examples post theirs before {@code rdma_accept}.
     *
     * @param depth its size
     * @return a new SRQ
     */
    SharedReceiveQueue srq(int depth) {
        SharedReceiveQueue srq = pd.createSrq(new SrqInitAttr().maxWr(Math.max(depth, 1)).maxSge(1));
        srqs.add(srq);
        return srq;
    }

    /**
     * @param bytes its size
     * @param access its {@link AccessFlag} mask
     * @return a direct buffer of that size, registered
     */
    MemoryRegion region(int bytes, int access) {
        MemoryRegion mr = pd.regMr(ByteBuffer.allocateDirect(Math.max(bytes, 1)), access);
        mrs.add(mr);
        return mr;
    }

    /**
     * @param name a host name or IP literal (a tool's {@code -s} or {@code -a})
     * @return its address
     * @throws ToolFailure naming it if it does not resolve
     */
    static InetAddress address(String name) throws ToolFailure {
        try {
            return InetAddress.getByName(name);
        } catch (UnknownHostException e) {
            throw new ToolFailure("cannot resolve '" + name + "'", e);
        }
    }

    /**
     * librdmacm's examples take {@code -f gid} for AF_IB addresses (a GID and a service ID, RDMA_PS_IB); rvt-cm has
     * IP addresses only, as RoCE's rdma_cm has them (AF_INET, AF_INET6). {@code -f ip}, {@code ipv6} and
     * {@code name} are what rvt does anyway.
     *
     * @param args a tool's command line
     * @throws IllegalArgumentException with the reason if {@code -f} asks for GIDs
     */
    static void refuseAfIb(ToolArgs args) {
        String f = args.string('f', "ip");
        if (f.regionMatches(true, 0, "gid", 0, 3)) {
            throw new IllegalArgumentException(args.tool() + ": -f " + f + " (AF_IB addresses) is not offered: rvt-cm"
                    + " has IP addresses only (AF_INET, AF_INET6), as rdma_cm on RoCE");
        }
    }

    /**
     * A {@code -P} port space other than the one rvt-cm uses for the tool.
     *
     * @param args a tool's command line
     * @param only the port space's name as the tool takes it ({@code tcp}, {@code udp})
     * @param what how to name it in the message
     * @throws IllegalArgumentException with the reason if {@code -P} names another
     */
    static void refusePortSpace(ToolArgs args, String only, String what) {
        String p = args.string('P', only);
        if (!p.regionMatches(true, 0, only, 0, only.length())) {
            throw new IllegalArgumentException(args.tool() + ": -P " + p + " is not offered: rvt-cm serves "
                    + args.tool() + " in " + what + " only (no RDMA_PS_IB, no RDMA_PS_IPOIB)");
        }
    }

    /**
     * A server's {@code -s}/{@code -a}: the address the Linux tool binds to. rvt's CM listens on its HCA, whose one
     * address it must be (or a wildcard).
     *
     * @param name the option's value, or null
     * @throws ToolFailure if it names another host's address
     */
    void checkBindAddress(String name) throws ToolFailure {
        if (name == null) {
            return;
        }
        InetAddress a = address(name);
        Gid mine = device.queryGid(1, 0);
        if (!a.isAnyLocalAddress() && !ConnectionManager.gidOf(a).equals(mine)) {
            throw new ToolFailure(name + " is not this HCA's address (GID " + mine + ")");
        }
    }

    /**
     * @param a an address and port, or null
     * @return {@code 192.0.2.2:35459} or {@code [2001:db8::2]:35459}, {@code -} for null
     */
    static String describe(java.net.InetSocketAddress a) {
        if (a == null) {
            return "-";
        }
        String host = a.getAddress().getHostAddress();
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort();
    }

    @Override
    public void close() {
        for (SharedReceiveQueue srq : srqs) {
            srq.destroySrq();
        }
        for (MemoryRegion mr : mrs) {
            mr.deregMr();
        }
        for (CompletionQueue cq : cqs) {
            cq.destroyCq();
        }
        if (channel != null) {
            channel.destroyCompChannel();
        }
        pd.deallocPd();
        cm.close();
    }
}
