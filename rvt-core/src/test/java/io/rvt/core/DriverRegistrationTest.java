package io.rvt.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.DeviceCounter;
import io.rvt.api.Errno;
import io.rvt.api.PortAttr;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.QpAttr;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.VerbsException;
import io.rvt.api.WrOpcode;
import io.rvt.api.CompletionQueue;
import io.rvt.api.QpAttrMask;
import io.rvt.api.spi.Callback;
import io.rvt.api.spi.DriverDevice;
import io.rvt.api.spi.DriverParams;
import io.rvt.api.spi.DriverValidationException;
import io.rvt.api.spi.Verb;
import io.rvt.testkit.ManualTimerService;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Registration (rdmavt {@code rvt_register_device}): per-verb callback checks, declined verbs, mandatory verbs and the
 * parameter checks, each refused with one {@link DriverValidationException} naming the driver and what is wrong.
 */
class DriverRegistrationTest {
    /** The verbs in the order rdmavt checks them: check_support for every verb, then the QP subsystem's own needs. */
    private static final List<Verb> RDMAVT_ORDER = List.of(Verb.MISC, Verb.QUERY_PORT, Verb.MODIFY_PORT,
            Verb.QUERY_GID, Verb.CREATE_QP, Verb.MODIFY_QP, Verb.DESTROY_QP, Verb.POST_SEND, Verb.QP_INIT);

    /**
     * Each required callback left out (its whole group then missing, as a driver hands in a group or not), with the
     * verb and callback registration names: the first verb in rdmavt's order that needs a callback of that group,
     * and the first such callback in that verb's list.
     */
    static Stream<Arguments> requiredCallbacks() {
        Set<Callback> all = new LinkedHashSet<>();
        for (Verb v : RDMAVT_ORDER) {
            all.addAll(Arrays.asList(v.requiredCallbacks()));
        }
        List<Arguments> out = new ArrayList<>();
        for (Callback c : all) {
            Verb first = RDMAVT_ORDER.stream().filter(v -> Arrays.stream(v.requiredCallbacks())
                    .anyMatch(r -> r.group() == c.group())).findFirst().orElseThrow();
            Callback named = Arrays.stream(first.requiredCallbacks()).filter(r -> r.group() == c.group())
                    .findFirst().orElseThrow();
            out.add(Arguments.of(c, first, named));
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} missing -> {1} needs {2}")
    @MethodSource("requiredCallbacks")
    void shouldRefuseNamingDriverVerbAndCallbackWhenARequiredCallbackIsMissing(Callback missing, Verb verb,
            Callback named) {
        AtomicInteger registered = new AtomicInteger();
        TestDriver d = new TestDriver() {
            @Override
            public void registered(DriverDevice device) {
                registered.incrementAndGet();
            }
        }.name("x").without(missing);

        assertThatThrownBy(d::register).isInstanceOfSatisfying(DriverValidationException.class, e -> {
            assertThat(e.errno()).isEqualTo(Errno.EINVAL);
            assertThat(e.driverName()).isEqualTo("x");
            assertThat(e.getMessage()).startsWith("driver 'x': " + verb + " needs callback " + named.methodName()
                    + " (" + named.cName() + ")");
        });
        assertThat(registered).as("nothing built for a refused driver").hasValue(0);
    }

    @Test
    void shouldNamePostSendWhenModifyQpIsDeclinedAndNoSendEngineIsHandedIn() {
        // rdmavt checks the verbs in order (check_support): modify_qp first needs schedule_send, then post_send.
        assertThatThrownBy(() -> new TestDriver().name("x").without(Callback.DO_SEND).register())
                .isInstanceOf(DriverValidationException.class)
                .hasMessageStartingWith("driver 'x': MODIFY_QP needs callback scheduleSend (schedule_send)");
        assertThatThrownBy(() -> new TestDriver().name("x").without(Callback.DO_SEND)
                .unsupportedVerbs(Verb.MODIFY_QP).register())
                .isInstanceOf(DriverValidationException.class)
                .hasMessageStartingWith("driver 'x': POST_SEND needs callback scheduleSend (schedule_send)");
    }

    @Test
    void shouldCreateModifyAndDestroyQpsWhenNoPerQpStateNorQuiesceIsHandedIn() {
        // rdmavt requires qp_priv_* and the quiesce callbacks; rvt lets a driver without per-QP state leave them out.
        TestDriver d = new TestDriver().timerService(new ManualTimerService()).name("n%d")
                .without(Callback.QP_PRIV_FREE, Callback.QUIESCE_QP);
        RvtDevice dev = d.register();
        try {
            QueuePair qp = createQp(dev);
            qp.modifyQp(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(0),
                    QpAttrMask.STATE.bit() | QpAttrMask.PKEY_INDEX.bit() | QpAttrMask.PORT.bit()
                            | QpAttrMask.ACCESS_FLAGS.bit());
            qp.modifyQp(new QpAttr().qpState(QpState.ERR), QpAttrMask.STATE.bit());
            qp.modifyQp(new QpAttr().qpState(QpState.RESET), QpAttrMask.STATE.bit());
            qp.destroyQp();
            assertThat(dev.deviceCounter(DeviceCounter.QPS_ALLOCATED)).as("the QP is gone").isZero();
        } finally {
            dev.unregister();
        }
        for (Callback c : new Callback[] {Callback.QP_PRIV_ALLOC, Callback.QP_PRIV_FREE, Callback.NOTIFY_QP_RESET,
                Callback.FLUSH_QP_WAITERS, Callback.STOP_SEND_QUEUE, Callback.QUIESCE_QP, Callback.NOTIFY_ERROR_QP}) {
            assertThat(d.calls(c)).as("%s of a group not handed in", c).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Verb.class, names = {"MISC", "QP_INIT"})
    void shouldRefuseWhenAMandatoryVerbIsDeclined(Verb verb) {
        assertThatThrownBy(() -> new TestDriver().name("y").unsupportedVerbs(verb).register())
                .isInstanceOfSatisfying(DriverValidationException.class, e -> {
                    assertThat(e.errno()).isEqualTo(Errno.EINVAL);
                    assertThat(e.getMessage()).startsWith("driver 'y': ").contains(verb.name())
                            .contains("cannot be declined");
                });
    }

    /** A verb declined (its own callbacks missing) registers, and the verb then fails with EOPNOTSUPP. */
    static Stream<Arguments> declinableVerbs() {
        return Stream.of(
                Arguments.of(Verb.QUERY_PORT, EnumSet.of(Callback.QUERY_PORT_STATE),
                        (Consumer<RvtDevice>) dev -> dev.queryPort(1, new PortAttr())),
                Arguments.of(Verb.MODIFY_PORT, EnumSet.of(Callback.CAP_MASK_CHG, Callback.SHUT_DOWN_PORT),
                        (Consumer<RvtDevice>) dev -> dev.modifyPort(1, 0, 1, 0)),
                Arguments.of(Verb.QUERY_GID, EnumSet.of(Callback.GET_GUID_BE),
                        (Consumer<RvtDevice>) dev -> dev.queryGid(1, 0)),
                Arguments.of(Verb.CREATE_QP, EnumSet.noneOf(Callback.class),
                        (Consumer<RvtDevice>) dev -> createQp(dev)),
                Arguments.of(Verb.MODIFY_QP, EnumSet.of(Callback.GET_PMTU_FROM_ATTR, Callback.NOTIFY_ERROR_QP,
                        Callback.MTU_FROM_QP, Callback.MTU_TO_PATH_MTU),
                        (Consumer<RvtDevice>) dev -> createQp(dev).modifyQp(new QpAttr().qpState(QpState.RESET),
                                QpAttrMask.STATE.bit())),
                Arguments.of(Verb.DESTROY_QP, EnumSet.noneOf(Callback.class),
                        (Consumer<RvtDevice>) dev -> createQp(dev).destroyQp()),
                // MODIFY_QP still needs schedule_send: the send engine stays, and post_send must not reach it
                Arguments.of(Verb.POST_SEND, EnumSet.noneOf(Callback.class),
                        (Consumer<RvtDevice>) dev -> createQp(dev).postSend(
                                new SendWorkRequest(0).opcode(WrOpcode.SEND))));
    }

    private static QueuePair createQp(RvtDevice dev) {
        ProtectionDomain pd = dev.allocPd();
        CompletionQueue cq = dev.createCq(16, 0, null, null);
        QpInitAttr init = new QpInitAttr().qpType(QpType.RC).sendCq(cq).recvCq(cq);
        init.cap().maxSendWr(4).maxRecvWr(4).maxSendSge(1).maxRecvSge(1);
        return pd.createQp(init);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("declinableVerbs")
    void shouldWaiveCallbacksAndFailVerbWithEopnotsuppWhenVerbIsDeclined(Verb verb, Set<Callback> missing,
            Consumer<RvtDevice> call) {
        TestDriver d = new TestDriver().timerService(new ManualTimerService()).name("z%d").unsupportedVerbs(verb)
                .without(missing.toArray(new Callback[0]));
        RvtDevice dev = d.register();

        assertThatThrownBy(() -> call.accept(dev)).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).as(verb + " declined").isEqualTo(Errno.EOPNOTSUPP));
        assertThat(d.calls(Callback.DO_SEND)).as("a declined post_send never reaches do_send").isZero();
    }

    @Test
    void shouldRefuseAMissingOperationTableUnlessPostSendIsDeclined() {
        assertThatThrownBy(() -> new TestDriver().name("t").postParms(null).register())
                .isInstanceOf(DriverValidationException.class)
                .hasMessageStartingWith("driver 't': POST_SEND needs an operation table");

        RvtDevice dev = new TestDriver().timerService(new ManualTimerService()).name("t%d").postParms(null)
                .unsupportedVerbs(Verb.POST_SEND).register();
        assertThat(dev.operationTable().get(WrOpcode.SEND)).isNull();
    }

    // ------------------------------------------------------------------ parameters

    static Stream<Arguments> badParams() {
        DriverParams.Builder base = TestDriver.defaultParams();
        return Stream.of(
                Arguments.of(base.build().toBuilder().qpTableSize(0).build(), List.of("qp_table_size", "0")),
                Arguments.of(base.build().toBuilder().lkeyTableSize(0).build(), List.of("lkey_table_size", "0")),
                Arguments.of(base.build().toBuilder().qpnResStart(10).qpnResEnd(5).build(),
                        List.of("qpn_res_end", "5", "qpn_res_start", "10")),
                Arguments.of(base.build().toBuilder().nports(0).build(), List.of("nports", "0")));
    }

    @ParameterizedTest
    @MethodSource("badParams")
    void shouldRefuseNamingFieldAndValueWhenAParameterIsBad(DriverParams params, List<String> words) {
        assertThatThrownBy(() -> new TestDriver().name("p").params(params).register())
                .isInstanceOfSatisfying(DriverValidationException.class, e -> {
                    assertThat(e.errno()).isEqualTo(Errno.EINVAL);
                    assertThat(e.getMessage()).startsWith("driver 'p': ");
                    for (String w : words) {
                        assertThat(e.getMessage()).contains(w);
                    }
                });
    }

    @Test
    void shouldClampLkeyTableSizeTo23BitsWhenDriverAsksFor30() {
        RvtDevice dev = new TestDriver().timerService(new ManualTimerService())
                .params(TestDriver.defaultParams().lkeyTableSize(30).build()).register();

        assertThat(dev.queryDevice().maxMr()).isEqualTo(1 << 23);
    }

    @Test
    void shouldReportMaxMrOfTheTableWhenLkeyTableSizeIsValid() {
        RvtDevice dev = new TestDriver().timerService(new ManualTimerService())
                .params(TestDriver.defaultParams().lkeyTableSize(10).build()).register();

        assertThat(dev.queryDevice().maxMr()).isEqualTo(1 << 10);
    }

    @Test
    void shouldNotifyMadAgentPerPortAndCallRegisteredWhenDriverIsValid() {
        List<String> seen = new ArrayList<>();
        TestDriver d = new TestDriver() {
            @Override
            public void notifyCreateMadAgent(DriverDevice rdi, int portIdx) {
                seen.add("mad " + portIdx);
            }

            @Override
            public void registered(DriverDevice device) {
                seen.add("registered " + device.portCount());
            }
        };
        d.params(TestDriver.defaultParams().nports(2).build()).timerService(new ManualTimerService());

        RvtDevice dev = d.register();

        assertThat(seen).containsExactly("mad 0", "mad 1", "registered 2");
        assertThat(dev.isAlive()).isTrue();
        assertThat(dev.driverName()).isEqualTo("test%d");
        assertThat(dev.name()).matches("test[0-9]+");
    }

    @Test
    void shouldRefuseTheSameDriverInstanceWithEbusyWhileItsDeviceIsRegistered() {
        TestDriver driver = new TestDriver();
        RvtDevice first = driver.register();
        assertThatThrownBy(driver::register).isInstanceOfSatisfying(VerbsException.class, e -> {
            assertThat(e.errno()).isEqualTo(Errno.EBUSY);
            assertThat(e.getMessage()).contains(first.name()).contains("'" + driver.name() + "'");
        });
        assertThat(first.isAlive()).isTrue();
        assertThat(first.queryPort(1, new PortAttr())).isNotNull();
        first.unregister();
        RvtDevice again = driver.register(); // once removed, the instance may register again
        assertThat(again.isAlive()).isTrue();
        assertThat(new TestDriver().register().isAlive()).as("another instance is independent").isTrue();
        again.unregister();
    }
}
