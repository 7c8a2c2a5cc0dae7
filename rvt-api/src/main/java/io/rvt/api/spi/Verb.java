package io.rvt.api.spi;

/**
 * The verbs rvt-core implements for a driver, with the driver callbacks each one needs (rdmavt's
 * {@code check_support} table). At registration every verb's callbacks must be provided, unless the driver lists the
 * verb in {@link RvtDriver#unsupportedVerbs()}, in which case the verb fails with {@code EOPNOTSUPP} on that device.
 * {@link #MISC} and the QP subsystem's own needs ({@link #QP_INIT}) can never be waived.
 */
public enum Verb {
    /**
     * Always checked ({@code MISC}); rdmavt requires {@code get_pci_dev} here, for its log lines, which rvt does not
     * need (it names the device by its name): nothing to provide.
     */
    MISC(),
    /** QP subsystem initialisation ({@code rvt_driver_qp_init}), always checked. */
    QP_INIT(Callback.QP_PRIV_ALLOC, Callback.QP_PRIV_FREE, Callback.NOTIFY_QP_RESET,
            Callback.NOTIFY_RESTART_RC),
    /** {@code query_port}. */
    QUERY_PORT(Callback.QUERY_PORT_STATE),
    /** {@code modify_port}. */
    MODIFY_PORT(Callback.CAP_MASK_CHG, Callback.SHUT_DOWN_PORT),
    /** {@code query_gid}. */
    QUERY_GID(Callback.GET_GUID_BE),
    /** {@code create_qp}. */
    CREATE_QP(Callback.QP_PRIV_ALLOC, Callback.QP_PRIV_FREE, Callback.NOTIFY_QP_RESET, Callback.FLUSH_QP_WAITERS,
            Callback.STOP_SEND_QUEUE, Callback.QUIESCE_QP),
    /** {@code modify_qp}. */
    MODIFY_QP(Callback.NOTIFY_QP_RESET, Callback.SCHEDULE_SEND, Callback.GET_PMTU_FROM_ATTR,
            Callback.FLUSH_QP_WAITERS, Callback.STOP_SEND_QUEUE, Callback.QUIESCE_QP, Callback.NOTIFY_ERROR_QP,
            Callback.MTU_FROM_QP, Callback.MTU_TO_PATH_MTU),
    /** {@code destroy_qp}. */
    DESTROY_QP(Callback.QP_PRIV_FREE, Callback.NOTIFY_QP_RESET, Callback.FLUSH_QP_WAITERS, Callback.STOP_SEND_QUEUE,
            Callback.QUIESCE_QP),
    /** {@code post_send} (also needs the operation table). */
    POST_SEND(Callback.SCHEDULE_SEND, Callback.DO_SEND);

    private final Callback[] required;

    Verb(Callback... required) {
        this.required = required;
    }

    /** @return the callbacks this verb needs (a copy) */
    public Callback[] requiredCallbacks() {
        return required.clone();
    }

    /** @return true if a driver may not decline this verb */
    public boolean isMandatory() {
        return this == MISC || this == QP_INIT;
    }
}
