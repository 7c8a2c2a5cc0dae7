/**
 * The driver SPI: the Java mirror of rdmavt's struct rvt_driver_provided ({@code RvtDriver}), struct
 * rvt_driver_params ({@code DriverParams}), struct rvt_operation_params ({@code OperationTable}), and the driver's
 * views of what rvt-core owns ({@code DriverDevice}, {@code DriverPort}, {@code DriverQp},
 * ...). The engine state rvt-core and rvt-transport share is not here: it is {@code io.rvt.api.spi.engine}.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("3.0.0")
package io.rvt.api.spi;
