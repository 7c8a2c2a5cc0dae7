package io.rvt.driver.jni;

/**
 * The socket layer a {@link JniDriver} sends and receives its RoCEv2 datagrams through. Everything above it (framing,
 * ICRC, the RC/UC/UD engines, batching) is the same for both.
 */
public enum Wire {
    /**
     * {@code librvtjni.so}: {@code sendmmsg}/{@code recvmmsg} batches straight from and into direct buffers, IPv4
     * sockets with {@code IP_PMTUDISC_DO} (DF set, IP ID 0, so the ICRC is exact), {@code poll} on the socket and an
     * eventfd when idle.
     */
    NATIVE,
    /**
     * The JDK's {@link java.nio.channels.DatagramChannel}: one system call per datagram, and on IPv4 the kernel's
     * default path-MTU mode; for comparison (benchmarks) and for machines without the native library.
     */
    JDK
}
