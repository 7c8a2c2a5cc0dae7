package io.rvt.cm;

import java.util.ServiceLoader;

/** The {@link CmProvider} rvt-cm's implementation package provides, found once through rvt-cm's class loader. */
final class CmProviders {
    /** rvt-cm's own: the first the loader finds (there is one). */
    static final CmProvider PROVIDER = ServiceLoader.load(CmProvider.class, CmProvider.class.getClassLoader())
            .findFirst().orElseThrow(() -> new IllegalStateException("rvt-cm provides no " + CmProvider.class.getName()
                    + " (its module-info or META-INF/services entry for io.rvt.cm.impl.RegistryProvider is missing)"));

    private CmProviders() {
    }
}
