package io.rvt.api.spi;

import io.rvt.api.QpType;
import io.rvt.api.WcOpcode;

/**
 * One entry of an {@link OperationTable} ({@code struct rvt_operation_params}), plus the completion opcode rdmavt
 * looks up in {@code rdi->wc_opcode} for it.
 *
 * @param shape the work-request variant the operation reads ({@code length}; a missing entry means unsupported)
 * @param qptSupport bit mask of QP types allowed ({@code qpt_support}: {@code 1 << QpType.value()})
 * @param flags {@link OperationFlag} bits
 * @param wcOpcode the completion opcode ({@code wc_opcode[opcode]})
 */
public record OperationParams(WrShape shape, int qptSupport, int flags, WcOpcode wcOpcode) {
    /** The QP types rdmavt can support: SMI, GSI, RC, UC, UD. */
    public static final int QPT_ALL = QpType.SMI.bit() | QpType.GSI.bit() | QpType.RC.bit() | QpType.UC.bit()
            | QpType.UD.bit();

    /**
     * @param type a QP type
     * @return true if {@code type}'s bit is in {@link #qptSupport()}
     */
    public boolean supports(QpType type) {
        return (qptSupport & type.bit()) != 0;
    }

    /**
     * @param flag an {@link OperationFlag} bit
     * @return true if the flag is set
     */
    public boolean has(int flag) {
        return (flags & flag) != 0;
    }
}
