package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.Device;
import io.rvt.api.spi.RvtDriver;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.osgi.service.cm.ConfigurationAdmin;

class BundleExportsTest {

    @Test
    void shouldExportRvtApiAtTheVersionsOfItsOwnManifestWhenTheSystemBundleReExportsIt() {
        String exports = BundleExports.of(Device.class);

        assertThat(exports).matches("io\\.rvt\\.api;version=\\d+\\.\\d+\\.\\d+,io\\.rvt\\.api\\.spi;version=\\d+\\.\\d+\\.\\d+"
                + "(,io\\.rvt\\.api\\.[a-z.]+;version=\\d+\\.\\d+\\.\\d+)*");
        assertThat(BundleExports.of(RvtDriver.class)).isEqualTo(exports);
    }

    @Test
    void shouldNameEveryPackageOfTheConfigAdminApiWhenItsJarExportsSeveral() {
        assertThat(BundleExports.of(ConfigurationAdmin.class)).startsWith("org.osgi.service.cm;version=1.6");
    }

    @Test
    void shouldSplitAtCommasOutsideQuotesWhenAClauseHasUses() {
        List<String> clauses = BundleExports.clauses("a.b;version=\"1.0.0\";uses:=\"c.d,e.f\",c.d;version=2.0.0");

        assertThat(clauses).containsExactly("a.b;version=\"1.0.0\";uses:=\"c.d,e.f\"", "c.d;version=2.0.0");
    }
}
