package io.rvt.it;

import java.util.List;
import java.util.TreeMap;
import java.util.function.Predicate;

/** The live threads of this JVM, by name. */
final class Threads {
    /** driver-sim names every thread it starts so (fabric, send engines, shared agents). */
    static final String DRIVER_SIM_PREFIX = "rvt-sim-";
    /** driver-jni names its only threads, one engine per port, {@code rvt-jni-<device>-port<n>}. */
    static final String DRIVER_JNI_PREFIX = "rvt-jni-";

    private Threads() {
    }

    /** @return the names of live threads that match */
    static List<String> named(Predicate<String> which) {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(which).sorted().toList();
    }

    /** @return live driver-sim threads */
    static List<String> driverSim() {
        return named(n -> n.startsWith(DRIVER_SIM_PREFIX));
    }

    /** @return live driver-jni threads */
    static List<String> driverJni() {
        return named(n -> n.startsWith(DRIVER_JNI_PREFIX));
    }

    /**
     * @return how many live threads there are of each kind: the name with its digits dropped (device numbers grow
     *         from run to run), leaving out the pools that size themselves (the JDK's common pool, Felix's resolver)
     */
    static TreeMap<String, Integer> profile() {
        TreeMap<String, Integer> out = new TreeMap<>();
        for (String n : named(n -> !n.startsWith("ForkJoinPool.commonPool") && !n.startsWith("FelixResolver-"))) {
            out.merge(n.replaceAll("[0-9]+", "#"), 1, Integer::sum);
        }
        return out;
    }
}
