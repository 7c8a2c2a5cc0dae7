package io.rvt.cm;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.AccessFlag;
import io.rvt.api.CompletionQueue;
import io.rvt.api.Device;
import io.rvt.api.MemoryRegion;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.core.RvtDevice;
import io.rvt.driver.jni.JniDriver;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Runs the rvt-cm example of docs/cm.md, which is the text between "doc: begin" and "doc: end" here ({@code
 * io.rvt.docs.DocsTest} checks that): a server and a client on two driver-jni HCAs of this host
 * (127.0.0.1 and 127.0.0.2, both on UDP 4791, as two processes or two hosts would be).
 */
class CmExampleTest {
    // doc: begin
    /** The server: listens on CM port 18515, accepts one connection, receives one message, waits for the end. */
    static String server(Device device) throws Exception {
        ProtectionDomain pd = device.allocPd();
        CompletionQueue cq = device.createCq(64, 0, null, null);
        ByteBuffer buf = ByteBuffer.allocateDirect(4096);
        MemoryRegion mr = pd.regMr(buf, AccessFlag.LOCAL_WRITE.bit());
        try (ConnectionManager cm = ConnectionManager.of(device);
             Listener listener = cm.listen(18515)) {
            ConnectRequest request = listener.accept(Duration.ofSeconds(30));
            try (Connection conn = request.acceptAsync(new QpOptions().pd(pd).cq(cq), null)) {
                conn.qp().postRecv(new RecvWorkRequest(1).wrId(1).sge(mr, 0, 4096));
                conn.awaitEstablished(Duration.ofSeconds(10));
                WorkCompletion wc = poll(cq);
                byte[] got = new byte[wc.byteLen()];
                buf.get(0, got);
                conn.disconnected().get(10, TimeUnit.SECONDS); // the client hung up
                return new String(got, StandardCharsets.UTF_8);
            }
        }
    }

    /** The client: connects to the server's address and port, sends one message, disconnects by closing. */
    static void client(Device device, String serverAddress) throws Exception {
        ProtectionDomain pd = device.allocPd();
        CompletionQueue cq = device.createCq(64, 0, null, null);
        ByteBuffer buf = ByteBuffer.allocateDirect(4096);
        MemoryRegion mr = pd.regMr(buf, AccessFlag.LOCAL_WRITE.bit());
        byte[] hello = "hello over rvt-cm".getBytes(StandardCharsets.UTF_8);
        buf.put(0, hello);
        try (ConnectionManager cm = ConnectionManager.of(device);
             Connection conn = cm.connect(new ConnectOptions().destination(InetAddress.getByName(serverAddress))
                     .port(18515).qp(new QpOptions().pd(pd).cq(cq)), Duration.ofSeconds(10))) {
            conn.qp().postSend(new SendWorkRequest(1).wrId(2).opcode(WrOpcode.SEND).sge(mr, 0, hello.length));
            poll(cq);
        } // close: DREQ to the server, the QP destroyed
    }

    static WorkCompletion poll(CompletionQueue cq) {
        WorkCompletion wc = new WorkCompletion();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!cq.pollCq(wc)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no completion within 10 s");
            }
            Thread.onSpinWait();
        }
        if (wc.status() != io.rvt.api.WcStatus.SUCCESS) {
            throw new IllegalStateException("work request failed: " + wc);
        }
        return wc;
    }
    // doc: end

    @Test
    void shouldRunTheDocsExampleBetweenTwoHcas() throws Exception {
        RvtDevice a = RvtDevice.register(JniDriver.builder().name("readme-a").address("127.0.0.1").build());
        RvtDevice b = RvtDevice.register(JniDriver.builder().name("readme-b").address("127.0.0.2").build());
        try {
            CompletableFuture<String> received = CompletableFuture.supplyAsync(() -> {
                try {
                    return server(a);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            // the server listens within its first steps; a client that comes too early is refused: try again
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (true) {
                try {
                    client(b, "127.0.0.1");
                    break;
                } catch (CmException e) {
                    if (e.rejectReason() != RejectReason.INVALID_SERVICE_ID || System.nanoTime() > deadline) {
                        throw e;
                    }
                    Thread.onSpinWait();
                }
            }
            assertThat(received.get(30, TimeUnit.SECONDS)).isEqualTo("hello over rvt-cm");
        } finally {
            a.unregister();
            b.unregister();
        }
    }
}
