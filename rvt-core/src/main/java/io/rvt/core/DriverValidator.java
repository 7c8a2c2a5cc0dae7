package io.rvt.core;

import io.rvt.api.spi.Callback;
import io.rvt.api.spi.DriverParams;
import io.rvt.api.spi.DriverValidationException;
import io.rvt.api.spi.OperationTable;
import io.rvt.api.spi.RvtDriver;
import io.rvt.api.spi.Verb;
import java.util.Set;

/**
 * Registration-time validation of a driver (rdmavt: {@code check_support} for every verb, then the parameter checks
 * of {@code rvt_driver_qp_init} and {@code rvt_driver_mr_init}), done before anything is allocated. A callback is
 * provided when the driver hands in its group ({@link DriverGroups}), as a C pointer is when it is not NULL. The first
 * problem found is reported in one {@link DriverValidationException} naming the driver and the verb and callback, or
 * the parameter and its value.
 */
final class DriverValidator {
    private DriverValidator() {
    }

    record Result(DriverParams params, OperationTable operationTable, DriverGroups groups) {
    }

    static Result validate(RvtDriver driver) {
        if (driver == null) {
            throw new DriverValidationException("<null>", "no driver given");
        }
        String name = driver.name();
        if (name == null || name.isBlank()) {
            throw new DriverValidationException(String.valueOf(name), "name() must be a non-empty string");
        }
        DriverGroups groups = DriverGroups.of(driver);
        Set<Verb> declined = driver.unsupportedVerbs() == null ? Set.of() : driver.unsupportedVerbs();
        // rdmavt checks every verb (check_support) before the QP subsystem's own needs (rvt_driver_qp_init), so a
        // missing qp_priv_free is reported against CREATE_QP unless that verb is declined: QP_INIT goes last.
        for (Verb v : verbsInCheckOrder()) {
            if (declined.contains(v)) {
                if (v.isMandatory()) {
                    throw new DriverValidationException(name, v + " cannot be declined in unsupportedVerbs()");
                }
                continue;
            }
            for (Callback c : v.requiredCallbacks()) {
                if (!groups.provides(c)) {
                    throw new DriverValidationException(name,
                            v + " needs callback " + c.methodName() + " (" + c.cName() + ")");
                }
            }
        }
        OperationTable ops = driver.postParms();
        if (ops == null && !declined.contains(Verb.POST_SEND)) {
            throw new DriverValidationException(name, "POST_SEND needs an operation table (post_parms): postParms()"
                    + " returned null");
        }
        DriverParams p = driver.params();
        if (p == null) {
            throw new DriverValidationException(name, "params() returned null");
        }
        checkParams(name, p);
        checkLimits(name, p.props(), declined);
        return new Result(p, ops == null ? OperationTable.builder().build() : ops, groups);
    }

    private static Verb[] verbsInCheckOrder() {
        Verb[] all = Verb.values();
        Verb[] order = new Verb[all.length];
        int n = 0;
        for (Verb v : all) {
            if (v != Verb.QP_INIT) {
                order[n++] = v;
            }
        }
        order[n] = Verb.QP_INIT;
        return order;
    }

    private static void checkParams(String name, DriverParams p) {
        if (p.props() == null) {
            throw new DriverValidationException(name, "props (ib_device_attr) is null");
        }
        if (p.qpTableSize() <= 0) {
            throw new DriverValidationException(name, "qp_table_size must be positive, got " + p.qpTableSize());
        }
        if (p.lkeyTableSize() <= 0) {
            throw new DriverValidationException(name, "lkey_table_size must be positive, got " + p.lkeyTableSize());
        }
        if (p.qpnResEnd() < p.qpnResStart()) {
            throw new DriverValidationException(name, "qpn_res_end " + p.qpnResEnd() + " is below qpn_res_start "
                    + p.qpnResStart());
        }
        if (p.qpnResStart() < 0 || p.qpnResEnd() > 0xFFFFFF) {
            throw new DriverValidationException(name, "reserved QPN range [" + p.qpnResStart() + ", " + p.qpnResEnd()
                    + "] is outside 0..0xFFFFFF");
        }
        if (p.qpnStart() < 0 || p.qpnStart() > 0xFFFFFF) {
            throw new DriverValidationException(name, "qpn_start " + p.qpnStart() + " is outside 0..0xFFFFFF");
        }
        if (p.qpnInc() < 1 || p.qosShift() < 0 || p.qosShift() > 16 || ((long) p.qpnInc() << p.qosShift()) > 0x8000) {
            throw new DriverValidationException(name, "qpn_inc " + p.qpnInc() + " << qos_shift " + p.qosShift()
                    + " must be in 1..32768");
        }
        if (p.nports() < 1 || p.nports() > 255) {
            throw new DriverValidationException(name, "nports must be in 1..255, got " + p.nports());
        }
        if (p.npkeys() < 1 || p.npkeys() > 0xFFFF) {
            throw new DriverValidationException(name, "npkeys must be in 1..65535, got " + p.npkeys());
        }
        if (p.reservedOperations() < 0) {
            throw new DriverValidationException(name, "reserved_operations must be at least 0, got "
                    + p.reservedOperations());
        }
        if (p.maxRdmaAtomic() < 0 || p.extraRdmaAtomic() < 0) {
            throw new DriverValidationException(name, "max_rdma_atomic " + p.maxRdmaAtomic() + " and extra_rdma_atomic "
                    + p.extraRdmaAtomic() + " must be at least 0");
        }
        if (p.numCompVectors() < 0) {
            throw new DriverValidationException(name, "num_comp_vectors must be at least 0, got "
                    + p.numCompVectors());
        }
        if (p.props().maxQpWr() > (1 << 24)) {
            throw new DriverValidationException(name, "max_qp_wr " + p.props().maxQpWr() + " exceeds 2^24");
        }
    }

    /**
     * Every limit a verb the driver offers needs must be positive: PDs and CQs are always offered, QPs unless
     * CREATE_QP is declined. All zero ones are named at once (rdmavt registers such a driver, and its verbs fail later
     * with e.g. "max_pd 0 protection domains exist").
     */
    private static void checkLimits(String name, io.rvt.api.DeviceAttributes a, Set<Verb> declined) {
        java.util.List<String> zero = new java.util.ArrayList<>();
        zeroIf(zero, "max_pd (allocPd)", a.maxPd());
        zeroIf(zero, "max_cq (createCq)", a.maxCq());
        zeroIf(zero, "max_cqe (createCq)", a.maxCqe());
        if (!declined.contains(Verb.CREATE_QP)) {
            zeroIf(zero, "max_qp (createQp)", a.maxQp());
            zeroIf(zero, "max_qp_wr (createQp)", a.maxQpWr());
            zeroIf(zero, "max_send_sge (createQp)", a.maxSendSge());
            zeroIf(zero, "max_recv_sge (createQp)", a.maxRecvSge());
        }
        if (!zero.isEmpty()) {
            throw new DriverValidationException(name, "device attribute" + (zero.size() == 1 ? " " : "s ")
                    + String.join(", ", zero) + (zero.size() == 1 ? " is" : " are") + " 0 (or negative)");
        }
    }

    private static void zeroIf(java.util.List<String> zero, String what, long value) {
        if (value <= 0) {
            zero.add(what);
        }
    }
}
