/**
 * The rvt command: lists devices and runs a ping-pong between two simulated HCAs, through the plain-Java device
 * registry ({@code Rvt.open()}).
 */
module io.rvt.launcher {
    requires io.rvt.api;

    uses io.rvt.api.DeviceRegistry;
}
