package io.rvt.api.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class VerbCallbackTest {

    /**
     * rdmavt-semantics.md §2.1: check_support per verb, plus rvt_driver_qp_init's unconditional callbacks; less
     * get_pci_dev (MISC) and free_all_qps (QP_INIT), which rvt has no use for, and less the QpPrivate and QpQuiesce
     * groups (qp_priv_alloc, qp_priv_free, notify_qp_reset, notify_restart_rc; flush_qp_waiters, stop_send_queue,
     * quiesce_qp, notify_error_qp), which a driver without per-QP state or wait lists leaves null.
     */
    private static Map<Verb, List<String>> spec() {
        Map<Verb, List<String>> m = new EnumMap<>(Verb.class);
        m.put(Verb.MISC, List.of());
        m.put(Verb.QP_INIT, List.of());
        m.put(Verb.QUERY_PORT, List.of("query_port_state"));
        m.put(Verb.MODIFY_PORT, List.of("cap_mask_chg", "shut_down_port"));
        m.put(Verb.QUERY_GID, List.of("get_guid_be"));
        m.put(Verb.CREATE_QP, List.of());
        m.put(Verb.MODIFY_QP, List.of("schedule_send", "get_pmtu_from_attr", "mtu_from_qp", "mtu_to_path_mtu"));
        m.put(Verb.DESTROY_QP, List.of());
        m.put(Verb.POST_SEND, List.of("schedule_send", "do_send"));
        return m;
    }

    /** The callback groups a driver hands in (RvtDriver's accessors), each with the C pointers it mirrors. */
    private static final Map<Class<?>, Set<String>> GROUPS = Map.of(
            SendEngine.class, Set.of("schedule_send", "schedule_send_no_lock", "do_send"),
            MtuConversion.class, Set.of("get_pmtu_from_attr", "mtu_from_qp", "mtu_to_path_mtu"),
            PortQuery.class, Set.of("query_port_state"),
            PortModify.class, Set.of("shut_down_port", "cap_mask_chg"),
            GidLookup.class, Set.of("get_guid_be"),
            QpPrivate.class, Set.of("qp_priv_alloc", "qp_priv_init", "qp_priv_free", "notify_qp_reset",
                    "notify_restart_rc"),
            QpQuiesce.class, Set.of("flush_qp_waiters", "stop_send_queue", "quiesce_qp", "notify_error_qp"));

    @Test
    void shouldGroupCallbacksAsTheGroupsDeclareThem() {
        for (Map.Entry<Class<?>, Set<String>> g : GROUPS.entrySet()) {
            Set<String> inGroup = Arrays.stream(Callback.values()).filter(c -> c.group() == g.getKey())
                    .map(Callback::cName).collect(Collectors.toSet());
            assertThat(inGroup).as(g.getKey().getSimpleName()).isEqualTo(g.getValue());
            Set<String> methods = Arrays.stream(g.getKey().getDeclaredMethods()).filter(m -> !m.isSynthetic())
                    .map(Method::getName).collect(Collectors.toSet());
            assertThat(methods).as("methods of %s", g.getKey().getSimpleName()).isEqualTo(
                    Arrays.stream(Callback.values()).filter(c -> c.group() == g.getKey()).map(Callback::methodName)
                            .collect(Collectors.toSet()));
            String accessor = Character.toLowerCase(g.getKey().getSimpleName().charAt(0))
                    + g.getKey().getSimpleName().substring(1);
            assertThat(Arrays.stream(RvtDriver.class.getDeclaredMethods())
                    .filter(m -> m.getName().equals(accessor) && m.getReturnType() == g.getKey()))
                    .as("RvtDriver.%s()", accessor).hasSize(1);
        }
    }

    /** RvtDriver methods that are not callbacks of struct rvt_driver_provided. */
    private static final Set<String> NOT_CALLBACKS = Set.of("name", "params", "postParms", "unsupportedVerbs",
            "sendEngine", "mtuConversion", "portQuery", "portModify", "gidLookup", "qpPrivate", "qpQuiesce",
            "timerService", "completionExecutor", "initialPkeys", "registered",
            "unregistering", "notifyMcastAttach", "notifyMcastDetach", "progressWhileWaiting", "progress");

    @Test
    void shouldRequireExactlyTheCallbacksOfCheckSupportWhenVerbIsAsked() {
        Map<Verb, List<String>> spec = spec();
        assertThat(Verb.values()).containsExactlyInAnyOrderElementsOf(spec.keySet());
        for (Verb v : Verb.values()) {
            List<String> actual = Arrays.stream(v.requiredCallbacks()).map(Callback::cName)
                    .collect(Collectors.toList());
            assertThat(actual).as(v.name()).doesNotHaveDuplicates()
                    .containsExactlyInAnyOrderElementsOf(spec.get(v));
        }
    }

    @Test
    void shouldReturnCopyWhenRequiredCallbacksArrayIsModified() {
        Callback[] first = Verb.POST_SEND.requiredCallbacks();
        first[0] = Callback.COMP_VECT_CPU_LOOKUP;
        assertThat(Verb.POST_SEND.requiredCallbacks()).containsExactlyInAnyOrder(Callback.SCHEDULE_SEND,
                Callback.DO_SEND);
    }

    @Test
    void shouldBeMandatoryOnlyWhenVerbIsMiscOrQpInit() {
        for (Verb v : Verb.values()) {
            assertThat(v.isMandatory()).as(v.name()).isEqualTo(v == Verb.MISC || v == Verb.QP_INIT);
        }
    }

    @Test
    void shouldNameEveryRvtDriverProvidedMemberWhenCallbackConstantsAreListed() {
        // rdmavt-semantics.md §2.2 (UPSTREAM; port_callback is OOT-2022 only); setup_wqe is the engine's WqeSetup
        Set<String> spec = Set.of("schedule_send", "schedule_send_no_lock", "do_send",
                "qp_priv_alloc", "qp_priv_init", "qp_priv_free", "notify_qp_reset", "get_pmtu_from_attr",
                "flush_qp_waiters", "stop_send_queue", "quiesce_qp", "notify_error_qp", "mtu_from_qp",
                "mtu_to_path_mtu", "get_guid_be", "query_port_state", "shut_down_port", "cap_mask_chg",
                "check_ah", "notify_new_ah", "alloc_qpn", "check_modify_qp", "modify_qp",
                "notify_create_mad_agent", "notify_free_mad_agent", "notify_restart_rc", "comp_vect_cpu_lookup");
        Set<String> actual = Arrays.stream(Callback.values()).map(Callback::cName).collect(Collectors.toSet());
        assertThat(actual).isEqualTo(spec);
        assertThat(Callback.values()).hasSize(spec.size());
    }

    @Test
    void shouldNameExistingSingleRvtDriverMethodWhenMethodNameIsAsked() {
        for (Callback c : Callback.values()) {
            List<Method> found = Arrays.stream(c.group().getDeclaredMethods())
                    .filter(m -> m.getName().equals(c.methodName())).collect(Collectors.toList());
            assertThat(found).as("%s → %s.%s", c, c.group().getSimpleName(), c.methodName()).hasSize(1);
            assertThat(Modifier.isStatic(found.get(0).getModifiers())).isFalse();
        }
    }

    @Test
    void shouldBeCamelCaseOfCNameWhenMethodNameIsAsked() {
        for (Callback c : Callback.values()) {
            StringBuilder camel = new StringBuilder();
            boolean up = false;
            for (char ch : c.cName().toCharArray()) {
                if (ch == '_') {
                    up = true;
                } else {
                    camel.append(up ? Character.toUpperCase(ch) : ch);
                    up = false;
                }
            }
            assertThat(c.methodName()).as(c.name()).isEqualTo(camel.toString());
            assertThat(c.name()).as("constant name of %s", c.cName()).isEqualTo(c.cName().toUpperCase());
        }
    }

    @Test
    void shouldHaveCallbackConstantWhenRvtDriverMethodMirrorsACallback() {
        Set<String> methods = new TreeSet<>();
        for (Class<?> k : GROUPS.keySet()) {
            for (Method m : k.getDeclaredMethods()) {
                methods.add(m.getName());
            }
        }
        for (Method m : RvtDriver.class.getDeclaredMethods()) {
            if (!Modifier.isStatic(m.getModifiers()) && !m.isSynthetic()) {
                methods.add(m.getName());
            }
        }
        assertThat(methods).containsAll(NOT_CALLBACKS);
        methods.removeAll(NOT_CALLBACKS);
        Set<String> callbackMethods = new HashSet<>();
        for (Callback c : Callback.values()) {
            callbackMethods.add(c.methodName());
        }
        assertThat(methods).as("RvtDriver and group methods that mirror a callback").isEqualTo(callbackMethods);
    }
}
