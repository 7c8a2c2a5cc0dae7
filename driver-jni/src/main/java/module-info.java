/**
 * driver-jni: an rvt driver whose wire is RoCEv2 (IBTA Annex A17) over real UDP sockets, through a small JNI library
 * ({@code librvtjni.so}, shipped inside this module/bundle) that batches datagrams with {@code sendmmsg} and
 * {@code recvmmsg}. It needs configuration (addresses, ports), so it is not a {@code ServiceLoader} provider: build
 * one with {@link io.rvt.driver.jni.JniDriver#builder()}, or configure the Declarative Services component
 * {@code io.rvt.driver.jni} through Config Admin under OSGi.
 */
module io.rvt.driver.jni {
    requires transitive io.rvt.api;
    requires transitive io.rvt.transport; // JniDriver.rcInFlight returns its RcInFlight
    requires static org.osgi.annotation.bundle;
    requires static org.osgi.annotation.versioning;
    requires static biz.aQute.bnd.annotation;               // @ServiceCapability, CLASS retention
    requires static osgi.core;                              // only the OSGi component
    requires static org.osgi.service.component.annotations;
    requires static org.osgi.service.metatype.annotations;

    exports io.rvt.driver.jni;
}
