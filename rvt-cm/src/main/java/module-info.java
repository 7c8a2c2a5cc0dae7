/**
 * rvt-cm: connection management over the verbs API, as librdmacm is over libibverbs. The IBTA Communication Manager
 * (IBTA vol 1 ch 12: REQ, MRA, REJ, REP, RTU, DREQ, DREP, SIDR_REQ, SIDR_REP) runs over each port's GSI QP; service
 * IDs and the REQ's private-data header follow rdma_cm's RDMA_PS_TCP port space (IBTA Annex A11), so that on RoCEv2
 * an rvt peer and a Linux rdma_cm peer speak the same wire. Applications listen, connect and accept through
 * {@link io.rvt.cm.ConnectionManager}; the CM moves the QPs through RESET-INIT-RTR-RTS itself.
 */
module io.rvt.cm {
    requires transitive io.rvt.api;
    requires static org.osgi.annotation.bundle;
    requires static org.osgi.annotation.versioning;
    requires static biz.aQute.bnd.annotation;               // @ServiceCapability, CLASS retention
    requires static osgi.core;                               // only the OSGi component (io.rvt.cm.osgi)
    requires static org.osgi.service.component.annotations;  // CLASS retention

    exports io.rvt.cm;

    // ConnectionManager.of reaches the implementation as a service, so that io.rvt.cm names no io.rvt.cm.impl class
    uses io.rvt.cm.CmProvider;
    provides io.rvt.cm.CmProvider with io.rvt.cm.impl.RegistryProvider;
}
