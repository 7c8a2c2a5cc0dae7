package io.rvt.api.spi;

/**
 * Every callback of {@code struct rvt_driver_provided}, with its C name and the {@link RvtDriver} method that
 * mirrors it. rvt-core treats a callback as provided when the driver's class overrides that method (the Java
 * counterpart of a non-NULL function pointer); {@link RvtDriver#providedCallbacks()} may override the detection.
 */
public enum Callback {
    /** {@code schedule_send}. */
    SCHEDULE_SEND("schedule_send", "scheduleSend"),
    /** {@code schedule_send_no_lock}. */
    SCHEDULE_SEND_NO_LOCK("schedule_send_no_lock", "scheduleSendNoLock"),
    /** {@code do_send}. */
    DO_SEND("do_send", "doSend"),
    /** {@code qp_priv_alloc}. */
    QP_PRIV_ALLOC("qp_priv_alloc", "qpPrivAlloc"),
    /** {@code qp_priv_init}. */
    QP_PRIV_INIT("qp_priv_init", "qpPrivInit"),
    /** {@code qp_priv_free}. */
    QP_PRIV_FREE("qp_priv_free", "qpPrivFree"),
    /** {@code notify_qp_reset}. */
    NOTIFY_QP_RESET("notify_qp_reset", "notifyQpReset"),
    /** {@code get_pmtu_from_attr}. */
    GET_PMTU_FROM_ATTR("get_pmtu_from_attr", "getPmtuFromAttr"),
    /** {@code flush_qp_waiters}. */
    FLUSH_QP_WAITERS("flush_qp_waiters", "flushQpWaiters"),
    /** {@code stop_send_queue}. */
    STOP_SEND_QUEUE("stop_send_queue", "stopSendQueue"),
    /** {@code quiesce_qp}. */
    QUIESCE_QP("quiesce_qp", "quiesceQp"),
    /** {@code notify_error_qp}. */
    NOTIFY_ERROR_QP("notify_error_qp", "notifyErrorQp"),
    /** {@code mtu_from_qp}. */
    MTU_FROM_QP("mtu_from_qp", "mtuFromQp"),
    /** {@code mtu_to_path_mtu}. */
    MTU_TO_PATH_MTU("mtu_to_path_mtu", "mtuToPathMtu"),
    /** {@code get_guid_be}. */
    GET_GUID_BE("get_guid_be", "getGuidBe"),
    /** {@code query_port_state}. */
    QUERY_PORT_STATE("query_port_state", "queryPortState"),
    /** {@code shut_down_port}. */
    SHUT_DOWN_PORT("shut_down_port", "shutDownPort"),
    /** {@code cap_mask_chg}. */
    CAP_MASK_CHG("cap_mask_chg", "capMaskChg"),
    /** {@code check_ah}. */
    CHECK_AH("check_ah", "checkAh"),
    /** {@code notify_new_ah}. */
    NOTIFY_NEW_AH("notify_new_ah", "notifyNewAh"),
    /** {@code alloc_qpn}. */
    ALLOC_QPN("alloc_qpn", "allocQpn"),
    /** {@code check_modify_qp}. */
    CHECK_MODIFY_QP("check_modify_qp", "checkModifyQp"),
    /** {@code modify_qp}. */
    MODIFY_QP("modify_qp", "modifyQp"),
    /** {@code notify_create_mad_agent}. */
    NOTIFY_CREATE_MAD_AGENT("notify_create_mad_agent", "notifyCreateMadAgent"),
    /** {@code notify_free_mad_agent}. */
    NOTIFY_FREE_MAD_AGENT("notify_free_mad_agent", "notifyFreeMadAgent"),
    /** {@code notify_restart_rc}. */
    NOTIFY_RESTART_RC("notify_restart_rc", "notifyRestartRc"),
    /** {@code comp_vect_cpu_lookup}. */
    COMP_VECT_CPU_LOOKUP("comp_vect_cpu_lookup", "compVectCpuLookup");

    private final String cName;
    private final String methodName;

    Callback(String cName, String methodName) {
        this.cName = cName;
        this.methodName = methodName;
    }

    /** @return the member name in {@code struct rvt_driver_provided} */
    public String cName() {
        return cName;
    }

    /** @return the {@link RvtDriver} method that mirrors it */
    public String methodName() {
        return methodName;
    }
}
