package io.rvt.api.spi;

/**
 * A driver that implements only the abstract methods of {@link RvtDriver} and hands in no callback group, so that
 * every default method can be observed as rvt-api ships it.
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
}
