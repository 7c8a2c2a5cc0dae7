package io.rvt.launcher;

import io.rvt.api.Device;
import io.rvt.api.DeviceAttributes;
import io.rvt.api.PortAttr;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * {@code rvt devices [-d DEV] [-i PORT] [-l] [-v]}: every device and port, laid out like ibv_devinfo ({@code -v}: the
 * limits too; {@code -d}, {@code -i}: one device, one port; {@code -l}: the names only); RoCE ports (driver-jni) show
 * link layer Ethernet, LID 0 and their IP address as GID 0.
 */
final class DevicesCommand {
    private final PrintStream out;
    private final boolean verbose;
    private boolean list;
    private String ibDev;
    private int ibPort;

    /**
     * @param out where the listing goes
     * @param verbose whether to list the device limits
     */
    DevicesCommand(PrintStream out, boolean verbose) {
        this.out = out;
        this.verbose = verbose;
    }

    /**
     * @param list the names only ({@code -l})
     * @param ibDev the one device to list ({@code -d}), or null for all
     * @param ibPort the one port to list ({@code -i}), or 0 for all
     * @return this
     */
    DevicesCommand only(boolean list, String ibDev, int ibPort) {
        this.list = list;
        this.ibDev = ibDev;
        this.ibPort = ibPort;
        return this;
    }

    /**
     * Lists the host's devices.
     *
     * @param host the devices' host
     * @throws UsageException for a {@code -d} or {@code -i} that names no device or port
     */
    void run(Host host) {
        List<Device> devs = Main.requireDevices(host, 1, "devices");
        if (ibDev != null) {
            devs = devs.stream().filter(d -> d.name().equals(ibDev)).toList();
            if (devs.isEmpty()) {
                throw new UsageException("option --ib-dev: no device '" + ibDev + "' (devices: " + String.join(", ",
                        Main.requireDevices(host, 1, "devices").stream().map(Device::name).toList()) + ")");
            }
        }
        if (list) {
            // ibv_devinfo -l
            out.printf("%d HCA%s found:%n", devs.size(), devs.size() == 1 ? "" : "s");
            for (Device d : devs) {
                out.printf("\t%s%n", d.name());
            }
            return;
        }
        for (Device d : devs) {
            if (ibPort > d.portCount()) {
                throw new UsageException("option --ib-port: " + d.name() + " has no port " + ibPort + " (it has "
                        + d.portCount() + ")");
            }
        }
        for (Device d : devs) {
            print(d, host.driver());
        }
    }

    /**
     * @param fwVer a device's firmware version as ibv_query_device's kernel ABI carries it (64 bits)
     * @return it as libibverbs writes {@code fw_ver}: the top 32 bits, the next 16, the low 16 ({@code 1.2.003})
     */
    static String firmware(long fwVer) {
        return String.format(Locale.ROOT, "%d.%d.%03d", (int) (fwVer >>> 32), (int) (fwVer >>> 16) & 0xFFFF,
                (int) fwVer & 0xFFFF);
    }

    private void print(Device d, DriverKind driver) {
        DeviceAttributes a = d.queryDevice();
        out.printf("hca_id:\t%s%n", d.name());
        String how = driver.simulated() ? "simulated by " : "RoCEv2 over UDP by ";
        out.printf("\ttransport:\t\t\tInfiniBand (%s%s)%n", how, d.driverName());
        out.printf("\tfw_ver:\t\t\t\t%s%n", firmware(a.fwVer()));
        out.printf("\tnode_guid:\t\t\t%s%n", DeviceAttributes.formatGuid(a.nodeGuid()));
        out.printf("\tsys_image_guid:\t\t\t%s%n", DeviceAttributes.formatGuid(a.sysImageGuid()));
        out.printf("\tvendor_id:\t\t\t0x%04x%n", a.vendorId());
        out.printf("\tvendor_part_id:\t\t\t%d%n", a.vendorPartId());
        out.printf("\thw_ver:\t\t\t\t0x%X%n", a.hwVer());
        out.printf("\tphys_port_cnt:\t\t\t%d%n", d.portCount());
        if (verbose) {
            out.printf("\tmax_mr_size:\t\t\t0x%x%n", a.maxMrSize());
            out.printf("\tmax_qp:\t\t\t\t%d%n", a.maxQp());
            out.printf("\tmax_qp_wr:\t\t\t%d%n", a.maxQpWr());
            out.printf("\tmax_sge:\t\t\t%d%n", a.maxSendSge());
            out.printf("\tmax_cq:\t\t\t\t%d%n", a.maxCq());
            out.printf("\tmax_cqe:\t\t\t%d%n", a.maxCqe());
            out.printf("\tmax_mr:\t\t\t\t%d%n", a.maxMr());
            out.printf("\tmax_pd:\t\t\t\t%d%n", a.maxPd());
            out.printf("\tmax_qp_rd_atom:\t\t\t%d%n", a.maxQpRdAtom());
            out.printf("\tmax_srq:\t\t\t%d%n", a.maxSrq());
            out.printf("\tmax_mcast_grp:\t\t\t%d%n", a.maxMcastGrp());
        }
        for (int p = ibPort > 0 ? ibPort : 1; p <= (ibPort > 0 ? ibPort : d.portCount()); p++) {
            PortAttr pa = d.queryPort(p, new PortAttr());
            out.printf("\t\tport:\t%d%n", p);
            out.printf("\t\t\tstate:\t\t\tPORT_%s (%d)%n", pa.state(), pa.state().value());
            out.printf("\t\t\tmax_mtu:\t\t%d (%d)%n", pa.maxMtu().bytes(), pa.maxMtu().value());
            out.printf("\t\t\tactive_mtu:\t\t%d (%d)%n", pa.activeMtu().bytes(), pa.activeMtu().value());
            out.printf("\t\t\tsm_lid:\t\t\t%d%n", pa.smLid());
            out.printf("\t\t\tport_lid:\t\t%d%n", pa.lid());
            out.printf("\t\t\tport_lmc:\t\t0x%02x%n", pa.lmc());
            out.printf("\t\t\tGID[0]:\t\t\t%s%n", d.queryGid(p, 0));
            out.printf("\t\t\tlink_layer:\t\t%s%n", driver.linkLayer());
        }
        out.println();
    }
}
