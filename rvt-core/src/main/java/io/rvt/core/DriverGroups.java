package io.rvt.core;

import io.rvt.api.spi.Callback;
import io.rvt.api.spi.GidLookup;
import io.rvt.api.spi.MtuConversion;
import io.rvt.api.spi.PortModify;
import io.rvt.api.spi.PortQuery;
import io.rvt.api.spi.QpPrivate;
import io.rvt.api.spi.QpQuiesce;
import io.rvt.api.spi.RvtDriver;
import io.rvt.api.spi.SendEngine;

/**
 * The callback groups a driver handed in at registration, each null where the driver left it out (rdmavt's NULL
 * function pointers in {@code struct rvt_driver_provided}); read once, so a driver cannot change them afterwards.
 */
record DriverGroups(SendEngine sendEngine, MtuConversion mtuConversion, PortQuery portQuery, PortModify portModify,
        GidLookup gidLookup, QpPrivate qpPrivate, QpQuiesce qpQuiesce) {

    static DriverGroups of(RvtDriver driver) {
        return new DriverGroups(driver.sendEngine(), driver.mtuConversion(), driver.portQuery(), driver.portModify(),
                driver.gidLookup(), driver.qpPrivate(), driver.qpQuiesce());
    }

    /**
     * @param c a callback
     * @return true if the driver provides it: its group was handed in, or it is a single optional callback (a
     *         default method of {@link RvtDriver}, which does what rdmavt does for a NULL pointer unless overridden)
     */
    boolean provides(Callback c) {
        Class<?> g = c.group();
        if (g == RvtDriver.class) {
            return true;
        }
        Object group = g == SendEngine.class ? sendEngine
                : g == MtuConversion.class ? mtuConversion
                : g == PortQuery.class ? portQuery
                : g == PortModify.class ? portModify
                : g == GidLookup.class ? gidLookup
                : g == QpPrivate.class ? qpPrivate
                : g == QpQuiesce.class ? qpQuiesce
                : null;
        return group != null;
    }
}
