package io.rvt.driver.jni;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The loader as a bundle update or refresh meets it: the same classes defined again by a second class loader load the
 * library a second time without "already loaded in another classloader", because each loader extracts its own copy.
 */
class NativeLoaderTest {
    private static Object call(ClassLoader loader, String method) throws Exception {
        Class<?> c = Class.forName(NativeUdp.class.getName(), true, loader);
        assertThat(c.getClassLoader()).isSameAs(loader);
        Method m = c.getDeclaredMethod(method);
        m.setAccessible(true);
        return m.invoke(null);
    }

    @Test
    void shouldLoadAgainWhenClassesAreDefinedByAnotherLoader() throws Exception {
        URL classes = Path.of(NativeUdp.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toUri()
                .toURL();
        try (URLClassLoader first = new URLClassLoader(new URL[] {classes}, ClassLoader.getPlatformClassLoader());
                URLClassLoader second = new URLClassLoader(new URL[] {classes},
                        ClassLoader.getPlatformClassLoader())) {
            assertThat(call(first, "unavailabilityCause")).isNull();
            assertThat(call(second, "unavailabilityCause")).isNull();
            assertThat((String) call(first, "loadedVia")).startsWith("extracted from /META-INF/native/linux-x86_64/");
            assertThat((String) call(second, "loadedVia")).startsWith("extracted from /META-INF/native/linux-x86_64/");
        }
        // and this test's own loader still has its copy
        assertThat(JniDriver.isAvailable()).isTrue();
    }
}
