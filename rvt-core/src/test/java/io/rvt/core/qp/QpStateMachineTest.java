package io.rvt.core.qp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.AsyncEvent;
import io.rvt.api.AsyncEventType;
import io.rvt.api.DeviceCounter;
import io.rvt.api.Errno;
import io.rvt.api.MigState;
import io.rvt.api.QpAttr;
import io.rvt.api.QpAttrMask;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.VerbsException;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.api.spi.Callback;
import io.rvt.api.spi.DriverQp;
import io.rvt.api.spi.QpIter;
import io.rvt.core.LoopbackTestDriver;
import io.rvt.core.TestDriver;
import io.rvt.core.TestUtil;
import io.rvt.core.srq.RvtSrq;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The QP state machine (semantics §7.5–§7.7, §7.11, §11.5): the IBTA transition table for every (current, new,
 * type) triple, checked against an independent copy of §7.5.1 both in {@link QpTransitions} and through real
 * {@code modifyQp} calls; table insertion and removal; reset and error side effects; last-WQE events; destroy
 * waiting for references; iteration; path migration.
 */
class QpStateMachineTest {
    private static final QpType[] TYPES = {QpType.RC, QpType.UC, QpType.UD, QpType.GSI, QpType.SMI};
    private static final int PKEY = QpAttrMask.PKEY_INDEX.bit();
    private static final int PORT = QpAttrMask.PORT.bit();
    private static final int QKEY = QpAttrMask.QKEY.bit();
    private static final int ACC = QpAttrMask.ACCESS_FLAGS.bit();
    private static final int AV = QpAttrMask.AV.bit();
    private static final int MTU = QpAttrMask.PATH_MTU.bit();
    private static final int DQPN = QpAttrMask.DEST_QPN.bit();
    private static final int RQ_PSN = QpAttrMask.RQ_PSN.bit();
    private static final int SQ_PSN = QpAttrMask.SQ_PSN.bit();
    private static final int DRD = QpAttrMask.MAX_DEST_RD_ATOMIC.bit();
    private static final int QRD = QpAttrMask.MAX_QP_RD_ATOMIC.bit();
    private static final int RNRT = QpAttrMask.MIN_RNR_TIMER.bit();
    private static final int TIMEOUT = QpAttrMask.TIMEOUT.bit();
    private static final int RETRY = QpAttrMask.RETRY_CNT.bit();
    private static final int RNR_RETRY = QpAttrMask.RNR_RETRY.bit();
    private static final int CUR = QpAttrMask.CUR_STATE.bit();
    private static final int ALT = QpAttrMask.ALT_PATH.bit();
    private static final int MIG = QpAttrMask.PATH_MIG_STATE.bit();
    private static final int SQDN = QpAttrMask.EN_SQD_ASYNC_NOTIFY.bit();
    private static final int STATE = QpAttrMask.STATE.bit();

    /** §7.5.1 written out again: key "CUR>NEW>TYPE" → {required, optional}. SMI and GSI share rows. */
    private static final Map<String, int[]> TABLE = new HashMap<>();

    private static void row(QpState cur, QpState next, QpType[] types, int req, int opt) {
        for (QpType t : types) {
            TABLE.put(cur + ">" + next + ">" + t, new int[] {req, opt});
        }
    }

    private static final QpType[] UD = {QpType.UD};
    private static final QpType[] UC = {QpType.UC};
    private static final QpType[] RC = {QpType.RC};
    private static final QpType[] SPECIAL = {QpType.SMI, QpType.GSI};

    static {
        row(QpState.RESET, QpState.RESET, TYPES, 0, 0);
        row(QpState.RESET, QpState.INIT, UD, PKEY | PORT | QKEY, 0);
        row(QpState.RESET, QpState.INIT, UC, PKEY | PORT | ACC, 0);
        row(QpState.RESET, QpState.INIT, RC, PKEY | PORT | ACC, 0);
        row(QpState.RESET, QpState.INIT, SPECIAL, PKEY | QKEY, 0);
        row(QpState.INIT, QpState.INIT, UD, 0, PKEY | PORT | QKEY);
        row(QpState.INIT, QpState.INIT, UC, 0, PKEY | PORT | ACC);
        row(QpState.INIT, QpState.INIT, RC, 0, PKEY | PORT | ACC);
        row(QpState.INIT, QpState.INIT, SPECIAL, 0, PKEY | QKEY);
        row(QpState.INIT, QpState.RTR, UD, 0, PKEY | QKEY);
        row(QpState.INIT, QpState.RTR, UC, AV | MTU | DQPN | RQ_PSN, ALT | ACC | PKEY);
        row(QpState.INIT, QpState.RTR, RC, AV | MTU | DQPN | RQ_PSN | DRD | RNRT, ALT | ACC | PKEY);
        row(QpState.INIT, QpState.RTR, SPECIAL, 0, PKEY | QKEY);
        row(QpState.RTR, QpState.RTS, UD, SQ_PSN, CUR | QKEY);
        row(QpState.RTR, QpState.RTS, UC, SQ_PSN, CUR | ALT | ACC | MIG);
        row(QpState.RTR, QpState.RTS, RC, TIMEOUT | RETRY | RNR_RETRY | SQ_PSN | QRD, CUR | ALT | ACC | RNRT | MIG);
        row(QpState.RTR, QpState.RTS, SPECIAL, SQ_PSN, CUR | QKEY);
        row(QpState.RTS, QpState.RTS, UD, 0, CUR | QKEY);
        row(QpState.RTS, QpState.RTS, UC, 0, CUR | ACC | ALT | MIG);
        row(QpState.RTS, QpState.RTS, RC, 0, CUR | ACC | ALT | MIG | RNRT);
        row(QpState.RTS, QpState.RTS, SPECIAL, 0, CUR | QKEY);
        row(QpState.RTS, QpState.SQD, TYPES, 0, SQDN);
        row(QpState.SQD, QpState.RTS, UD, 0, CUR | QKEY);
        row(QpState.SQD, QpState.RTS, UC, 0, CUR | ALT | ACC | MIG);
        row(QpState.SQD, QpState.RTS, RC, 0, CUR | ALT | ACC | RNRT | MIG);
        row(QpState.SQD, QpState.RTS, SPECIAL, 0, CUR | QKEY);
        row(QpState.SQD, QpState.SQD, UD, 0, PKEY | QKEY);
        row(QpState.SQD, QpState.SQD, UC, 0, AV | ALT | ACC | PKEY | MIG);
        row(QpState.SQD, QpState.SQD, RC, 0, PORT | AV | TIMEOUT | RETRY | RNR_RETRY | QRD | DRD | ALT | ACC | PKEY
                | RNRT | MIG);
        row(QpState.SQD, QpState.SQD, SPECIAL, 0, PKEY | QKEY);
        row(QpState.SQE, QpState.RTS, UD, 0, CUR | QKEY);
        row(QpState.SQE, QpState.RTS, UC, 0, CUR | ACC);
        row(QpState.SQE, QpState.RTS, SPECIAL, 0, CUR | QKEY);
        for (QpState s : new QpState[] {QpState.INIT, QpState.RTR, QpState.RTS, QpState.SQD, QpState.SQE,
            QpState.ERR}) {
            row(s, QpState.RESET, TYPES, 0, 0);
            row(s, QpState.ERR, TYPES, 0, 0);
        }
    }

    private static int[] expected(QpState cur, QpState next, QpType t) {
        return TABLE.get(cur + ">" + next + ">" + t);
    }

    // ------------------------------------------------------------------ the table

    @Test
    void shouldMatchTheIbtaTableForEveryStatePairAndTypeInQpTransitions() {
        int valid = 0;
        for (QpState cur : QpState.values()) {
            for (QpState next : QpState.values()) {
                for (QpType t : TYPES) {
                    String at = cur + " -> " + next + " for " + t;
                    int[] e = expected(cur, next, t);
                    if (e == null) {
                        assertThat(QpTransitions.check(cur, next, t, STATE)).as(at).isNotNull();
                        assertThat(QpTransitions.required(cur, next, t)).as(at).isEqualTo(-1);
                        for (int bit = 0; bit < 21; bit++) {
                            assertThat(QpTransitions.check(cur, next, t, STATE | 1 << bit)).as("%s + bit %d", at,
                                    bit).isNotNull();
                        }
                        continue;
                    }
                    valid++;
                    int req = e[0];
                    int opt = e[1];
                    assertThat(QpTransitions.required(cur, next, t)).as("%s: required", at).isEqualTo(req);
                    assertThat(QpTransitions.optional(cur, next, t)).as("%s: optional", at).isEqualTo(opt);
                    assertThat(QpTransitions.check(cur, next, t, STATE | req)).as(at).isNull();
                    assertThat(QpTransitions.check(cur, next, t, STATE | req | opt)).as("%s with all optional", at)
                            .isNull();
                    for (int bit = 0; bit < 26; bit++) {
                        int b = 1 << bit;
                        if (b == STATE) {
                            continue;
                        }
                        String why = QpTransitions.check(cur, next, t, STATE | (req & ~b) | ((req & b) == 0 ? b : 0));
                        boolean ok = (req & b) == 0 && (opt & b) != 0;
                        if ((req & b) != 0) {
                            assertThat(why).as("%s without required bit %d", at, bit).isNotNull();
                        } else {
                            assertThat(why == null).as("%s with bit %d (optional: %s)", at, bit, ok).isEqualTo(ok);
                        }
                    }
                }
            }
        }
        assertThat(valid).as("valid (cur, new, type) triples in §7.5.1").isEqualTo(109);
    }

    @Test
    void shouldAllowCurStateOnlyFromRtrRtsSqdOrSqe() {
        for (QpState cur : QpState.values()) {
            boolean allowed = cur == QpState.RTR || cur == QpState.RTS || cur == QpState.SQD || cur == QpState.SQE;
            // X -> ERR takes no optional attribute: CUR_STATE is always refused there; RTS -> RTS lists it.
            String why = QpTransitions.check(cur, QpState.RTS, QpType.UD, STATE | CUR
                    | (expected(cur, QpState.RTS, QpType.UD) == null ? 0 : expected(cur, QpState.RTS, QpType.UD)[0]));
            if (!allowed) {
                assertThat(why).as("CUR_STATE from %s", cur).isNotNull();
            } else if (expected(cur, QpState.RTS, QpType.UD) != null) {
                assertThat(why).as("CUR_STATE from %s", cur).isNull();
            }
        }
    }

    // ------------------------------------------------------------------ through modifyQp

    private static void bringTo(QpEnv env, RvtQp qp, QpState s) {
        switch (s) {
            case RESET:
                return;
            case ERR:
                env.toInit(qp);
                env.toErr(qp);
                return;
            default:
                env.toInit(qp);
                if (s == QpState.INIT) {
                    return;
                }
                env.toRtr(qp, qp.qpNum());
                if (s == QpState.RTR) {
                    return;
                }
                env.toRts(qp);
                if (s == QpState.SQD) {
                    qp.modifyQp(new QpAttr().qpState(QpState.SQD), STATE);
                }
        }
    }

    @Test
    void shouldAcceptExactlyTheTableTransitionsWhenModifyingRealQps() {
        QpEnv env = new QpEnv(new TestDriver());
        int tried = 0;
        for (QpType t : TYPES) {
            for (QpState cur : QpState.values()) {
                if (cur == QpState.SQE) {
                    continue; // no transition of the table leads into SQE: unreachable through modifyQp
                }
                for (QpState next : QpState.values()) {
                    String at = cur + " -> " + next + " for " + t;
                    RvtQp qp = env.create(t, 4, 4, 1);
                    bringTo(env, qp, cur);
                    assertThat(qp.state()).as(at).isEqualTo(cur);
                    int[] e = expected(cur, next, t);
                    QpAttr attr = env.validAttr(qp.qpNum()).qpState(next);
                    if (e != null) {
                        qp.modifyQp(attr, STATE | e[0]);
                        assertThat(qp.state()).as(at).isEqualTo(next);
                        assertThat(qp.queryQp(new QpAttr()).qpState()).as(at).isEqualTo(next);
                    } else {
                        assertThatThrownBy(() -> qp.modifyQp(attr, STATE)).as(at)
                                .isInstanceOfSatisfying(VerbsException.class,
                                        ex -> assertThat(ex.errno()).isEqualTo(Errno.EINVAL));
                        assertThat(qp.state()).as("%s: unchanged", at).isEqualTo(cur);
                    }
                    tried++;
                    qp.destroyQp();
                }
            }
        }
        assertThat(tried).isEqualTo(5 * 6 * 7);
        assertThat(env.dev.deviceCounter(DeviceCounter.QPS_ALLOCATED)).isZero();
    }

    // ------------------------------------------------------------------ table membership

    @Test
    void shouldInsertOnceAtInitAndRemoveAtResetWhenMovingThroughStates() {
        QpEnv env = new QpEnv(new TestDriver());
        RvtQp qp = env.rc();
        RvtIbport port = env.dev.port(1);
        assertThat(qp.refCount()).isZero();
        assertThat(env.dev.lookupQpn(port, qp.qpNum())).isNull();

        env.toInit(qp);
        assertThat(qp.refCount()).as("RESET -> INIT: table reference").isEqualTo(1);
        assertThat(env.dev.lookupQpn(port, qp.qpNum())).isSameAs(qp);
        qp.modifyQp(env.validAttr(0).qpState(QpState.INIT), STATE | PKEY);
        env.toRtr(qp, qp.qpNum());
        env.toRts(qp);
        env.toErr(qp);
        assertThat(qp.refCount()).as("INIT, RTR, RTS, ERR: still once").isEqualTo(1);
        assertThat(env.dev.qpTable().size()).isEqualTo(1);

        env.toReset(qp);
        assertThat(qp.refCount()).as("-> RESET: removed").isZero();
        assertThat(env.dev.lookupQpn(port, qp.qpNum())).isNull();
        assertThat(env.dev.lookupQpnAndRetain(port, qp.qpNum())).isNull();

        env.toInit(qp);
        assertThat(qp.refCount()).isEqualTo(1);
        DriverQp held = env.dev.lookupQpnAndRetain(port, qp.qpNum());
        assertThat(held).isSameAs(qp);
        assertThat(qp.refCount()).isEqualTo(2);
        held.release();
        assertThat(env.dev.qpTable().size()).isEqualTo(1);
    }

    // ------------------------------------------------------------------ reset and error side effects

    private static void postRecvs(RvtQp qp, long... wrIds) {
        for (long id : wrIds) {
            qp.postRecv(new RecvWorkRequest(0).wrId(id));
        }
    }

    private static String wcs(List<WorkCompletion> list) {
        StringBuilder b = new StringBuilder();
        for (WorkCompletion wc : list) {
            b.append(wc.wrId()).append(':').append(wc.status()).append(' ');
        }
        return b.toString().trim();
    }

    @Test
    void shouldKeepPostedReceivesWhenRtsGoesStraightToReset() {
        QpEnv env = new QpEnv(new TestDriver());
        RvtQp qp = env.rc();
        env.up(qp, qp.qpNum());
        postRecvs(qp, 1, 2, 3);

        env.toReset(qp);

        assertThat(QpEnv.poll(env.rcq)).as("reset generates no completion").isEmpty();
        assertThat(qp.rq().count(qp.rq().headAcquire(), qp.rq().tail())).as("quirk 34: kept").isEqualTo(3);
        env.up(qp, qp.qpNum());
        env.toErr(qp);
        assertThat(wcs(QpEnv.poll(env.rcq))).isEqualTo("1:WR_FLUSH_ERR 2:WR_FLUSH_ERR 3:WR_FLUSH_ERR");
    }

    @Test
    void shouldFlushReceivesAtErrAndLeaveNoneAfterReset() {
        QpEnv env = new QpEnv(new TestDriver());
        RvtQp qp = env.rc();
        env.up(qp, qp.qpNum());
        postRecvs(qp, 1, 2, 3);

        env.toErr(qp);
        assertThat(wcs(QpEnv.poll(env.rcq))).isEqualTo("1:WR_FLUSH_ERR 2:WR_FLUSH_ERR 3:WR_FLUSH_ERR");
        env.toReset(qp);

        assertThat(QpEnv.poll(env.rcq)).isEmpty();
        assertThat(qp.rq().count(qp.rq().headAcquire(), qp.rq().tail())).isZero();
    }

    @Test
    void shouldProduceNoCompletionAndNoCallbackWhenErrIsEnteredTwice() {
        TestDriver driver = new TestDriver();
        QpEnv env = new QpEnv(driver);
        RvtQp qp = env.rc();
        env.up(qp, qp.qpNum());
        postRecvs(qp, 1, 2);
        qp.postSend(new SendWorkRequest(0).opcode(WrOpcode.SEND).wrId(5));
        env.toErr(qp);
        assertThat(QpEnv.poll(env.rcq)).hasSize(2);
        int notified = driver.calls(Callback.NOTIFY_ERROR_QP);
        int scheduled = driver.calls(Callback.SCHEDULE_SEND);

        env.toErr(qp);

        assertThat(QpEnv.poll(env.rcq)).isEmpty();
        assertThat(QpEnv.poll(env.scq)).isEmpty();
        assertThat(driver.calls(Callback.NOTIFY_ERROR_QP)).isEqualTo(notified);
        assertThat(driver.calls(Callback.SCHEDULE_SEND)).isEqualTo(scheduled);
        assertThat(qp.state()).isEqualTo(QpState.ERR);
    }

    @Test
    void shouldRaiseOneLastWqeReachedPerErrTransitionWhenQpUsesAnSrqWithAHandler() {
        QpEnv env = new QpEnv(new TestDriver());
        RvtSrq srq = env.srq(16);
        srq.postSrqRecv(new RecvWorkRequest(0).wrId(9));
        List<AsyncEvent> events = new CopyOnWriteArrayList<>();
        QpInitAttr init = env.init(QpType.RC, 4, 0, 1).srq(srq).eventHandler(events::add);
        RvtQp qp = env.create(init);
        env.up(qp, qp.qpNum());

        env.toErr(qp);
        assertThat(events).extracting(AsyncEvent::type).containsExactly(AsyncEventType.QP_LAST_WQE_REACHED);
        assertThat(events.get(0).qp()).isSameAs(qp);
        env.toErr(qp);
        assertThat(events).as("ERR -> ERR raises nothing").hasSize(1);
        env.toReset(qp);
        env.toInit(qp);
        env.toErr(qp);
        assertThat(events).extracting(AsyncEvent::type).containsExactly(AsyncEventType.QP_LAST_WQE_REACHED,
                AsyncEventType.QP_LAST_WQE_REACHED);
        assertThat(QpEnv.poll(env.rcq)).as("the SRQ's receives are not flushed").isEmpty();
        assertThat(srq.rq().count(srq.rq().headAcquire(), srq.rq().tail())).isEqualTo(1);
    }

    @Test
    void shouldRaiseNoLastWqeReachedWhenQpHasItsOwnReceiveQueue() {
        QpEnv env = new QpEnv(new TestDriver());
        List<AsyncEvent> events = new CopyOnWriteArrayList<>();
        RvtQp qp = env.create(env.init(QpType.RC, 4, 4, 1).eventHandler(events::add));
        env.up(qp, qp.qpNum());

        env.toErr(qp);

        assertThat(events).isEmpty();
    }

    // ------------------------------------------------------------------ destroy

    @Test
    @Timeout(20)
    void shouldReturnFromDestroyOnlyAfterTheLastReferenceIsReleased() throws Exception {
        TestDriver driver = new TestDriver();
        QpEnv env = new QpEnv(driver);
        RvtQp qp = env.rc();
        env.up(qp, qp.qpNum());
        DriverQp held = env.dev.lookupQpnAndRetain(env.dev.port(1), qp.qpNum());
        assertThat(held).isSameAs(qp);
        CountDownLatch destroyed = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                qp.destroyQp();
            } catch (Throwable e) {
                failure.set(e);
            } finally {
                destroyed.countDown();
            }
        }, "destroyer");

        t.start();
        TestUtil.await(() -> t.getState() == Thread.State.WAITING || destroyed.getCount() == 0,
                "destroyQp to wait for the last reference");
        assertThat(destroyed.getCount()).as("destroy returned while a reference is held").isEqualTo(1);
        assertThat(driver.calls(Callback.QP_PRIV_FREE)).as("qp_priv_free waits too").isZero();
        assertThat(qp.refCount()).as("only the lookup's reference is left").isEqualTo(1);
        assertThat(env.dev.lookupQpnAndRetain(env.dev.port(1), qp.qpNum())).as("gone from the table").isNull();

        held.release();

        assertThat(destroyed.await(10, TimeUnit.SECONDS)).isTrue();
        t.join(TimeUnit.SECONDS.toMillis(5));
        assertThat(failure.get()).isNull();
        assertThat(driver.calls(Callback.QP_PRIV_FREE)).isEqualTo(1);
        assertThat(env.dev.deviceCounter(DeviceCounter.QPS_ALLOCATED)).isZero();
    }

    @Test
    void shouldRefuseASecondDestroy() {
        QpEnv env = new QpEnv(new TestDriver());
        RvtQp qp = env.rc();
        qp.destroyQp();

        assertThatThrownBy(qp::destroyQp).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
    }

    // ------------------------------------------------------------------ iteration

    @Test
    void shouldVisitEveryTableQpOnceIncludingBothPortsSpecialQps() {
        TestDriver driver = new TestDriver();
        driver.params(LoopbackTestDriver.loopbackParams(0).nports(2).build());
        QpEnv env = new QpEnv(driver);
        List<RvtQp> inTable = new ArrayList<>();
        for (int port = 1; port <= 2; port++) {
            for (QpType t : new QpType[] {QpType.SMI, QpType.GSI}) {
                RvtQp qp = env.create(env.init(t, 2, 2, 1).portNum(port));
                env.toInit(qp);
                inTable.add(qp);
            }
        }
        for (int i = 0; i < 20; i++) {
            RvtQp qp = env.create(i % 2 == 0 ? QpType.RC : QpType.UD, 2, 2, 1);
            env.toInit(qp);
            inTable.add(qp);
        }
        env.rc(); // in RESET: not in the table

        List<DriverQp> seen = new ArrayList<>();
        QpIter it = env.dev.qpIter();
        while (it.next()) {
            seen.add(it.qp());
        }
        assertThat(seen).containsExactlyInAnyOrderElementsOf(inTable);
        assertThat(seen).filteredOn(q -> q.qpNum() <= 1).hasSize(4);

        Map<DriverQp, Integer> visits = new HashMap<>();
        Map<QpType, Integer> byType = new EnumMap<>(QpType.class);
        env.dev.forEachQp(7, (qp, v) -> {
            assertThat(v).isEqualTo(7);
            assertThat(qp.refCount()).as("held during the callback").isEqualTo(2);
            visits.merge(qp, 1, Integer::sum);
            byType.merge(qp.type(), 1, Integer::sum);
        });
        assertThat(visits.keySet()).containsExactlyInAnyOrderElementsOf(inTable);
        assertThat(visits.values()).containsOnly(1);
        assertThat(byType).containsEntry(QpType.SMI, 2).containsEntry(QpType.GSI, 2);
        for (RvtQp qp : inTable) {
            assertThat(qp.refCount()).isEqualTo(1);
        }
    }

    // ------------------------------------------------------------------ path migration

    private static void arm(RvtQp qp) throws ReflectiveOperationException {
        // rvt-api offers a driver no way to arm migration (hfi1 sets s_mig_state = ARMED in its receive path).
        Field f = RvtQp.class.getDeclaredField("migState");
        f.setAccessible(true);
        qp.sendLock().lock();
        try {
            f.set(qp, MigState.ARMED);
        } finally {
            qp.sendLock().unlock();
        }
    }

    @Test
    void shouldSwapToAlternatePathAndRaisePathMigOnceWhenMigratingFromArmed() throws Exception {
        TestDriver driver = new TestDriver();
        driver.params(LoopbackTestDriver.loopbackParams(0).nports(2).build());
        QpEnv env = new QpEnv(driver);
        List<AsyncEvent> events = new CopyOnWriteArrayList<>();
        RvtQp qp = env.create(env.init(QpType.RC, 4, 4, 1).eventHandler(events::add));
        env.up(qp, qp.qpNum());
        QpAttr alt = new QpAttr().qpState(QpState.RTS).altPkeyIndex(3);
        alt.altAhAttr().dlid(0x22).portNum(2).sl(5);
        qp.modifyQp(alt, STATE | ALT);
        assertThat(qp.portNum()).isEqualTo(1);
        arm(qp);
        assertThat(qp.migState()).isEqualTo(MigState.ARMED);

        assertThatThrownBy(() -> qp.modifyQp(new QpAttr().qpState(QpState.RTS).pathMigState(MigState.REARM),
                STATE | MIG)).as("REARM while ARMED").isInstanceOfSatisfying(VerbsException.class,
                        e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        assertThat(events).isEmpty();

        qp.modifyQp(new QpAttr().qpState(QpState.RTS).pathMigState(MigState.MIGRATED), STATE | MIG);

        assertThat(events).extracting(AsyncEvent::type).containsExactly(AsyncEventType.PATH_MIG);
        assertThat(qp.remoteAhAttr().dlid()).isEqualTo(0x22);
        assertThat(qp.remoteAhAttr().sl()).isEqualTo(5);
        assertThat(qp.portNum()).isEqualTo(2);
        assertThat(qp.pkeyIndex()).isEqualTo(3);
        assertThat(qp.migState()).isEqualTo(MigState.MIGRATED);

        qp.modifyQp(new QpAttr().qpState(QpState.RTS).pathMigState(MigState.MIGRATED), STATE | MIG);
        assertThat(events).as("MIGRATED from MIGRATED: no migration").hasSize(1);
    }

    @Test
    void shouldRefusePathMigrationRequestsOutsideTheirStates() {
        QpEnv env = new QpEnv(new TestDriver());
        RvtQp qp = env.rc();
        env.up(qp, qp.qpNum());

        qp.modifyQp(new QpAttr().qpState(QpState.RTS).pathMigState(MigState.REARM), STATE | MIG);
        assertThat(qp.migState()).isEqualTo(MigState.REARM);
        for (MigState bad : new MigState[] {MigState.MIGRATED, MigState.ARMED}) {
            assertThatThrownBy(() -> qp.modifyQp(new QpAttr().qpState(QpState.RTS).pathMigState(bad), STATE | MIG))
                    .as("%s while REARM", bad).isInstanceOfSatisfying(VerbsException.class,
                            e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
            assertThat(qp.migState()).isEqualTo(MigState.REARM);
        }
        qp.modifyQp(new QpAttr().qpState(QpState.SQD), STATE);
        assertThatThrownBy(() -> qp.modifyQp(new QpAttr().qpState(QpState.SQD).pathMigState(MigState.REARM),
                STATE | MIG)).as("REARM needs a move to RTS").isInstanceOf(VerbsException.class);
    }

    @Test
    void shouldReportFlushedReceivesWithRecvOpcodeAndZeroLengthWhenQpEntersErr() {
        QpEnv env = new QpEnv(new TestDriver());
        RvtQp qp = env.rc();
        env.up(qp, qp.qpNum());
        postRecvs(qp, 7);

        env.toErr(qp);

        List<WorkCompletion> got = QpEnv.poll(env.rcq);
        assertThat(got).hasSize(1);
        assertThat(got.get(0).status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThat(got.get(0).opcode()).isEqualTo(io.rvt.api.WcOpcode.RECV);
        assertThat(got.get(0).byteLen()).isZero();
        assertThat(got.get(0).qpNum()).isEqualTo(qp.qpNum());
    }
}
