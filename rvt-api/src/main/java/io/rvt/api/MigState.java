package io.rvt.api;

/** Automatic path migration state, with the numeric values of {@code enum ib_mig_state}. */
public enum MigState {
    /** Migrated: the primary path is in use and no alternate is armed. */
    MIGRATED(0),
    /** Rearm: the alternate path is being loaded. */
    REARM(1),
    /** Armed: the alternate path is ready. */
    ARMED(2);

    private final int value;

    MigState(int value) {
        this.value = value;
    }

    /** @return the {@code ib_mig_state} value */
    public int value() {
        return value;
    }
}
