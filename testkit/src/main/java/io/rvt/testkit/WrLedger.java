package io.rvt.testkit;

import io.rvt.api.WcStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The exactly-once ledger of a stress test: which work requests a post handed over, which the post refused and
 * which completed. Thread-safe: posters, pollers and a thread that removes the device may use it at once.
 *
 * <p>Protocol: {@link #reserve()} a wr_id before it is posted (it is outstanding from then on: its completion may
 * come before the post returns); {@link #rejected(long)} for each work request a post refused (from its bad index
 * on); {@link #completed(long, WcStatus)} for each polled completion. A violation is recorded when a wr_id completes
 * twice, completes without being outstanding, or is refused after it completed; once the queues are drained,
 * {@link #outstanding()} lists the work requests accepted and never completed.
 */
public final class WrLedger {
    private static final int PENDING = 1;
    private static final int COMPLETED = 2;
    private static final int REJECTED = 3;

    private final Map<Long, Integer> states = new ConcurrentHashMap<>();
    private final Map<Long, WcStatus> firstStatus = new ConcurrentHashMap<>();
    private final List<String> violations = new CopyOnWriteArrayList<>();
    private final AtomicLong nextId = new AtomicLong(1);
    private final AtomicInteger pending = new AtomicInteger();
    private final AtomicLong completions = new AtomicLong();

    /** @return a fresh wr_id, outstanding from now on */
    public long reserve() {
        long id = nextId.getAndIncrement();
        states.put(id, PENDING);
        pending.incrementAndGet();
        return id;
    }

    /**
     * A post refused this work request.
     *
     * @param wrId its wr_id
     */
    public void rejected(long wrId) {
        Integer was = states.put(wrId, REJECTED);
        if (was == null || was != PENDING) {
            violations.add("wr_id " + wrId + " refused by its post but " + describe(wrId, was));
        } else {
            pending.decrementAndGet();
        }
    }

    /**
     * A completion was polled.
     *
     * @param wrId its wr_id
     * @param status its status
     */
    public void completed(long wrId, WcStatus status) {
        completions.incrementAndGet();
        Integer was = states.replace(wrId, COMPLETED);
        if (was == null || was != PENDING) {
            violations.add("wr_id " + wrId + " completed (" + status + ") but " + describe(wrId, was));
            if (was != null && was == REJECTED) {
                states.put(wrId, REJECTED);
            }
            return;
        }
        firstStatus.put(wrId, status);
        pending.decrementAndGet();
    }

    private String describe(long wrId, Integer state) {
        if (state == null) {
            return "was never posted";
        }
        switch (state) {
            case COMPLETED:
                return "had completed already (" + firstStatus.get(wrId) + ")";
            case REJECTED:
                return "was refused by its post";
            default:
                return "was outstanding";
        }
    }

    /** @return how many wr_ids are outstanding (reserved, neither refused nor completed) */
    public int pendingCount() {
        return pending.get();
    }

    /** @return completions recorded so far (including those that were violations) */
    public long completions() {
        return completions.get();
    }

    /** @return the outstanding wr_ids, ascending */
    public List<Long> outstanding() {
        List<Long> out = new ArrayList<>();
        states.forEach((id, s) -> {
            if (s == PENDING) {
                out.add(id);
            }
        });
        out.sort(null);
        return out;
    }

    /** @return every violation seen so far, in the order seen */
    public List<String> violations() {
        return List.copyOf(violations);
    }
}
