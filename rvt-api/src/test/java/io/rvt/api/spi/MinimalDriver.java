package io.rvt.api.spi;

/**
 * A driver that implements only the abstract (unconditionally required) methods of {@link RvtDriver}, so that every
 * default method can be observed as rvt-api ships it.
 */
class MinimalDriver implements RvtDriver {
    private final DriverParams params;

    MinimalDriver() {
        this(DriverParams.builder().build());
    }

    MinimalDriver(DriverParams params) {
        this.params = params;
    }

    @Override
    public String name() {
        return "minimal";
    }

    @Override
    public DriverParams params() {
        return params;
    }

    @Override
    public OperationTable postParms() {
        return OperationTable.standard();
    }

    @Override
    public Object qpPrivAlloc(DriverDevice rdi, DriverQp qp) {
        return null;
    }

    @Override
    public void qpPrivFree(DriverDevice rdi, DriverQp qp) {
    }

    @Override
    public void notifyQpReset(DriverQp qp) {
    }

    @Override
    public void notifyRestartRc(DriverQp qp, int psn, int wait) {
    }
}
