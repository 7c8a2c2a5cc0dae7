package io.rvt.api.spi;

/**
 * The verbs rvt-core implements for a driver, with the driver callbacks each one needs (rdmavt's
 * {@code check_support} table, less the groups rvt lets a driver leave out). At registration every verb's callbacks
 * must be provided (their group handed in), unless the driver lists the verb in {@link RvtDriver#unsupportedVerbs()},
 * in which case the verb fails with {@code EOPNOTSUPP} on that device. {@link #MISC} and {@link #QP_INIT} can never
 * be waived.
 *
 * <p>rdmavt's table also names, for {@code create_qp}, {@code modify_qp} and {@code destroy_qp} and for the QP
 * subsystem itself ({@code rvt_driver_qp_init}), the per-QP state callbacks ({@link QpPrivate}: {@code qp_priv_alloc},
 * {@code qp_priv_free}, {@code notify_qp_reset}, {@code notify_restart_rc}) and the quiesce callbacks
 * ({@link QpQuiesce}: {@code flush_qp_waiters}, {@code stop_send_queue}, {@code quiesce_qp},
 * {@code notify_error_qp}); rvt requires neither group: a driver without per-QP state or wait lists leaves them null.
 */
public enum Verb {
    /**
     * Always checked ({@code MISC}); rdmavt requires {@code get_pci_dev} here, for its log lines, which rvt does not
     * need (it names the device by its name): nothing to provide.
     */
    MISC(),
    /**
     * QP subsystem initialisation ({@code rvt_driver_qp_init}), always checked: rdmavt's four callbacks form
     * {@link QpPrivate}, which a driver without per-QP state leaves null, so nothing to provide.
     */
    QP_INIT(),
    /** {@code query_port}. */
    QUERY_PORT(Callback.QUERY_PORT_STATE),
    /** {@code modify_port}. */
    MODIFY_PORT(Callback.CAP_MASK_CHG, Callback.SHUT_DOWN_PORT),
    /** {@code query_gid}. */
    QUERY_GID(Callback.GET_GUID_BE),
    /** {@code create_qp}: nothing beyond the optional {@link QpPrivate} and {@link QpQuiesce}. */
    CREATE_QP(),
    /** {@code modify_qp}. */
    MODIFY_QP(Callback.SCHEDULE_SEND, Callback.GET_PMTU_FROM_ATTR, Callback.MTU_FROM_QP, Callback.MTU_TO_PATH_MTU),
    /** {@code destroy_qp}: nothing beyond the optional {@link QpPrivate} and {@link QpQuiesce}. */
    DESTROY_QP(),
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
