/**
 * The RoCEv2 driver: {@link io.rvt.driver.jni.JniDriver} (configured with {@link io.rvt.driver.jni.JniDriver#builder()}
 * or, under OSGi, through {@link io.rvt.driver.jni.JniDriverComponent}), the choice of socket layer
 * ({@link io.rvt.driver.jni.Wire}) and the errors the socket layer reports ({@link io.rvt.driver.jni.UdpException}).
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package io.rvt.driver.jni;
