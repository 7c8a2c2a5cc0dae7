package io.rvt.api.spi;

/**
 * Every callback of {@code struct rvt_driver_provided}, with its C name, the method that mirrors it and the
 * interface that declares that method ({@link #group()}). A callback of a group is provided when the driver hands the
 * group in (the Java counterpart of a non-NULL function pointer); registration names a missing one by
 * {@link #methodName()} and {@link #cName()}.
 */
public enum Callback {
    /** {@code schedule_send}. */
    SCHEDULE_SEND("schedule_send", "scheduleSend", SendEngine.class),
    /** {@code schedule_send_no_lock}. */
    SCHEDULE_SEND_NO_LOCK("schedule_send_no_lock", "scheduleSendNoLock", SendEngine.class),
    /** {@code do_send}. */
    DO_SEND("do_send", "doSend", SendEngine.class),
    /** {@code qp_priv_alloc}. */
    QP_PRIV_ALLOC("qp_priv_alloc", "qpPrivAlloc", QpPrivate.class),
    /** {@code qp_priv_init}. */
    QP_PRIV_INIT("qp_priv_init", "qpPrivInit", QpPrivate.class),
    /** {@code qp_priv_free}. */
    QP_PRIV_FREE("qp_priv_free", "qpPrivFree", QpPrivate.class),
    /** {@code notify_qp_reset}. */
    NOTIFY_QP_RESET("notify_qp_reset", "notifyQpReset", QpPrivate.class),
    /** {@code get_pmtu_from_attr}. */
    GET_PMTU_FROM_ATTR("get_pmtu_from_attr", "getPmtuFromAttr", MtuConversion.class),
    /** {@code flush_qp_waiters}. */
    FLUSH_QP_WAITERS("flush_qp_waiters", "flushQpWaiters", QpQuiesce.class),
    /** {@code stop_send_queue}. */
    STOP_SEND_QUEUE("stop_send_queue", "stopSendQueue", QpQuiesce.class),
    /** {@code quiesce_qp}. */
    QUIESCE_QP("quiesce_qp", "quiesceQp", QpQuiesce.class),
    /** {@code notify_error_qp}. */
    NOTIFY_ERROR_QP("notify_error_qp", "notifyErrorQp", QpQuiesce.class),
    /** {@code mtu_from_qp}. */
    MTU_FROM_QP("mtu_from_qp", "mtuFromQp", MtuConversion.class),
    /** {@code mtu_to_path_mtu}. */
    MTU_TO_PATH_MTU("mtu_to_path_mtu", "mtuToPathMtu", MtuConversion.class),
    /** {@code get_guid_be}. */
    GET_GUID_BE("get_guid_be", "getGuidBe", GidLookup.class),
    /** {@code query_port_state}. */
    QUERY_PORT_STATE("query_port_state", "queryPortState", PortQuery.class),
    /** {@code shut_down_port}. */
    SHUT_DOWN_PORT("shut_down_port", "shutDownPort", PortModify.class),
    /** {@code cap_mask_chg}. */
    CAP_MASK_CHG("cap_mask_chg", "capMaskChg", PortModify.class),
    /** {@code check_ah}. */
    CHECK_AH("check_ah", "checkAh", RvtDriver.class),
    /** {@code notify_new_ah}. */
    NOTIFY_NEW_AH("notify_new_ah", "notifyNewAh", RvtDriver.class),
    /** {@code alloc_qpn}. */
    ALLOC_QPN("alloc_qpn", "allocQpn", RvtDriver.class),
    /** {@code check_modify_qp}. */
    CHECK_MODIFY_QP("check_modify_qp", "checkModifyQp", RvtDriver.class),
    /** {@code modify_qp}. */
    MODIFY_QP("modify_qp", "modifyQp", RvtDriver.class),
    /** {@code notify_create_mad_agent}. */
    NOTIFY_CREATE_MAD_AGENT("notify_create_mad_agent", "notifyCreateMadAgent", RvtDriver.class),
    /** {@code notify_free_mad_agent}. */
    NOTIFY_FREE_MAD_AGENT("notify_free_mad_agent", "notifyFreeMadAgent", RvtDriver.class),
    /** {@code notify_restart_rc}. */
    NOTIFY_RESTART_RC("notify_restart_rc", "notifyRestartRc", QpPrivate.class),
    /** {@code comp_vect_cpu_lookup}. */
    COMP_VECT_CPU_LOOKUP("comp_vect_cpu_lookup", "compVectCpuLookup", RvtDriver.class);

    private final String cName;
    private final String methodName;
    private final Class<?> group;

    Callback(String cName, String methodName, Class<?> group) {
        this.cName = cName;
        this.methodName = methodName;
        this.group = group;
    }

    /** @return the member name in {@code struct rvt_driver_provided} */
    public String cName() {
        return cName;
    }

    /** @return the method that mirrors it, declared by {@link #group()} */
    public String methodName() {
        return methodName;
    }

    /**
     * @return the interface that declares {@link #methodName()}: a callback group ({@link SendEngine},
     *         {@link MtuConversion}, {@link PortQuery}, {@link PortModify}, {@link GidLookup}, {@link QpPrivate},
     *         {@link QpQuiesce}), provided when the driver hands it in, or {@link RvtDriver} itself for a single
     *         optional callback whose default method does what rdmavt does when the pointer is NULL
     */
    public Class<?> group() {
        return group;
    }
}
