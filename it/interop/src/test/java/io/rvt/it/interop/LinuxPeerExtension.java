package io.rvt.it.interop;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * One {@link LinuxPeer} for the whole test run (booting one takes about 1.5 minutes): a test class with
 * {@code @ExtendWith(LinuxPeerExtension.class)} gets it as a parameter of its constructor, {@code @BeforeAll} or
 * test methods, or from {@link #peer()}. Started before the first such class, closed when the run ends (the root
 * context's store closes it; a JVM shutdown hook and start.sh's watcher cover a run that ends otherwise). Where the
 * machine cannot run it (not root, no {@code ip}, no way to install QEMU) the classes are skipped and say why, like
 * the project's other namespace tests. A peer that failed to start fails every class that asks for it, with the
 * first failure's message, without trying again.
 */
public final class LinuxPeerExtension implements BeforeAllCallback, ParameterResolver {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(LinuxPeer.class);

    private static LinuxPeer shared;
    private static Throwable failure;

    /** Closes the shared peer when the root context's store is closed (the end of the run). */
    private static final class Closer implements AutoCloseable {
        @Override
        public void close() {
            synchronized (LinuxPeerExtension.class) {
                if (shared != null) {
                    shared.close();
                    shared = null;
                }
            }
        }
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        String missing = LinuxPeer.missingPrerequisite();
        assumeTrue(missing == null, missing);
        context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(Closer.class, k -> new Closer(), Closer.class);
        peer();
    }

    /**
     * @return the run's peer, started on the first call
     * @throws IllegalStateException if it could not be started (now or on an earlier call)
     * @throws InterruptedException if interrupted while it starts
     */
    public static synchronized LinuxPeer peer() throws InterruptedException {
        if (failure != null) {
            throw new IllegalStateException("the Linux peer failed to start earlier in this run", failure);
        }
        if (shared == null) {
            try {
                shared = LinuxPeer.start();
            } catch (RuntimeException | java.io.IOException e) {
                failure = e;
                throw new IllegalStateException("the Linux peer failed to start", e);
            }
        }
        return shared;
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == LinuxPeer.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        try {
            return peer();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the Linux peer started", e);
        }
    }
}
