package dev.dedup.agent.store.redis.access.connections;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ChannelSubscriptionTest {

    private final List<Boolean> told = new ArrayList<>();

    @Test
    void listening_onlyOnceEveryConnectionIsSubscribed_andNoLongerOnceOneDrops() {
        ChannelSubscription s = new ChannelSubscription(2, told::add);
        s.changed(+1, true);
        s.changed(+1, true);
        s.changed(-1, true);
        s.changed(+1, true);
        assertEquals(List.of(false, true, false, true), told);
    }

    @Test
    void aConnectionMovedToANewPrimary_subscribedBeforeTheOldOneIsSeenToDrop_endsListening() {
        ChannelSubscription s = new ChannelSubscription(1, told::add);
        s.changed(+1, true); // the first primary
        s.changed(+1, true); // the new primary's connection, while the old one still counts
        s.changed(-1, true); // the old one's drop
        assertEquals(List.of(true, false, true), told, "the last call says how the channel stands");
    }

    @Test
    void aDropThatIsTheSubscriptionsOwnClose_isNotTold() {
        ChannelSubscription s = new ChannelSubscription(1, told::add);
        s.changed(+1, true);
        s.changed(-1, false);
        assertEquals(List.of(true), told);
    }

    @Test
    void closing_closesEveryConnection_evenWhenOneFailsToClose() {
        ChannelSubscription s = new ChannelSubscription(2, told::add);
        AtomicInteger closed = new AtomicInteger();
        s.add(() -> {
            throw new IllegalStateException("already gone");
        });
        s.add(closed::incrementAndGet);
        s.close();
        assertEquals(1, closed.get());
    }

    @Test
    void concurrentChanges_areToldInTheOrderTheyCounted() throws InterruptedException {
        List<Boolean> calls = java.util.Collections.synchronizedList(new ArrayList<>());
        ChannelSubscription s = new ChannelSubscription(2, calls::add);
        s.changed(+1, true);
        s.changed(+1, true);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            Thread thread = new Thread(() -> {
                for (int i = 0; i < 10_000; i++) {
                    s.changed(-1, true);
                    s.changed(+1, true);
                }
            });
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
        assertTrue(
                calls.get(calls.size() - 1), "both connections are subscribed at the end, and the last call says so");
    }
}
