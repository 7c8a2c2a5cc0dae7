package io.rvt.testkit;

import java.util.Objects;
import java.util.function.LongFunction;

/**
 * One way to run a driver under the conformance suite: a name and how to make its fixture from a seed (an address
 * family, a threading, a socket layer, ...). A driver's conformance class lists its variants in a static
 * {@code variants()} method and every case of the suite runs once per variant, as Netty's testsuite runs each test
 * over the permutations its {@code TestsuitePermutation} lists:
 *
 * <pre>{@code
 * class JniRcConformanceTest extends RcConformanceTest {
 *     static List<Variant> variants() {
 *         return List.of(JniFixture.IPV4, JniFixture.IPV6, JniFixture.SHARED_ENGINE);
 *     }
 * }
 * }</pre>
 *
 * @param name how the variant is shown in test reports, e.g. {@code ipv6}; also part of its tests' default seed
 * @param fixture makes a new fixture for one test from the test's seed
 */
public record Variant(String name, LongFunction<DriverFixture> fixture) {
    /**
     * @param name how the variant is shown
     * @param fixture makes a fixture from a seed
     * @throws NullPointerException if either is null
     * @throws IllegalArgumentException if {@code name} is blank
     */
    public Variant {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(fixture, "fixture");
        if (name.isBlank()) {
            throw new IllegalArgumentException("a variant needs a name, got '" + name + "'");
        }
    }

    /**
     * @param seed the seed of the fixture's randomness
     * @return a new fixture of this variant
     */
    public DriverFixture open(long seed) {
        return fixture.apply(seed);
    }

    @Override
    public String toString() {
        return name;
    }
}
