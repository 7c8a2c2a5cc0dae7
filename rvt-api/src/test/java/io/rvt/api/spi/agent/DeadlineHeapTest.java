package io.rvt.api.spi.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class DeadlineHeapTest {
    private static final class Item {
        final DeadlineHeap.Node<Item> node = new DeadlineHeap.Node<>(this);
        final int id;

        Item(int id) {
            this.id = id;
        }
    }

    @Test
    void shouldGiveEarliestDeadlineFirstAndEqualDeadlinesBySequence() {
        DeadlineHeap<Item> h = new DeadlineHeap<>(1);
        Item a = new Item(0);
        Item b = new Item(1);
        Item c = new Item(2);
        h.add(c.node, 50, 3);
        h.add(b.node, 10, 2);
        h.add(a.node, 10, 1);
        assertThat(h.size()).isEqualTo(3);
        assertThat(h.peekDeadline()).isEqualTo(10);
        assertThat(h.poll()).isSameAs(a);
        assertThat(h.poll()).isSameAs(b);
        assertThat(h.poll()).isSameAs(c);
        assertThat(h.poll()).isNull();
        assertThat(h.peek()).isNull();
        assertThat(a.node.isQueued()).isFalse();
    }

    @Test
    void shouldOrderDeadlinesAcrossTheWrapOfNanoTime() {
        DeadlineHeap<Item> h = new DeadlineHeap<>(4);
        Item late = new Item(0);
        Item early = new Item(1);
        h.add(late.node, Long.MIN_VALUE + 5, 0); // after the wrap
        h.add(early.node, Long.MAX_VALUE - 5, 1); // before it
        assertThat(h.poll()).isSameAs(early);
        assertThat(h.poll()).isSameAs(late);
    }

    @Test
    void shouldMoveAndRemoveQueuedNodesAndKeepTheOrderOfTheRest() {
        SplittableRandom r = new SplittableRandom(7);
        DeadlineHeap<Item> h = new DeadlineHeap<>(2);
        List<Item> items = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            Item it = new Item(i);
            items.add(it);
            h.add(it.node, r.nextLong(1_000_000), i);
        }
        for (int i = 0; i < 500; i += 3) {
            h.add(items.get(i).node, r.nextLong(1_000_000), 1000 + i); // moved
        }
        List<Item> kept = new ArrayList<>();
        for (Item it : items) {
            if (it.id % 5 == 0) {
                assertThat(h.remove(it.node)).isTrue();
                assertThat(h.remove(it.node)).as("not queued any more").isFalse();
            } else {
                kept.add(it);
            }
        }
        kept.sort(Comparator.comparingLong((Item it) -> it.node.deadline()).thenComparingLong(it -> it.node.seq()));
        List<Item> out = new ArrayList<>();
        while (!h.isEmpty()) {
            out.add(h.poll());
        }
        assertThat(out).containsExactlyElementsOf(kept);
    }

    @Test
    void shouldForgetEveryNodeOnClear() {
        DeadlineHeap<Item> h = new DeadlineHeap<>(8);
        Item a = new Item(0);
        h.add(a.node, 1, 0);
        h.clear();
        assertThat(h.isEmpty()).isTrue();
        assertThat(a.node.isQueued()).isFalse();
        assertThat(h.remove(a.node)).isFalse();
        assertThatThrownBy(() -> new DeadlineHeap<Item>(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("got 0");
    }
}
