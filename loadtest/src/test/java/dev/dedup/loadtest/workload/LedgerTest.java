package dev.dedup.loadtest.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dedup.wire.Verdict;
import org.junit.jupiter.api.Test;

class LedgerTest {

    @Test
    void firstCopyIsExpectedNew() {
        Ledger ledger = new Ledger(3);
        assertEquals(Verdict.NEW, ledger.send(0, Owners.ORIGINAL));
        assertEquals(Verdict.NEW, ledger.send(1, Owners.SECOND_WRITE));
    }

    @Test
    void sameOwnerAgainIsExpectedRetry() {
        Ledger ledger = new Ledger(1);
        ledger.send(0, Owners.ORIGINAL);
        assertEquals(Verdict.RETRY, ledger.send(0, Owners.ORIGINAL));
    }

    @Test
    void anotherOwnerAfterTheFirstIsExpectedDuplicate_evenAfterRetries() {
        Ledger ledger = new Ledger(1);
        ledger.send(0, Owners.ORIGINAL);
        ledger.send(0, Owners.ORIGINAL);
        assertEquals(Verdict.DUPLICATE, ledger.send(0, Owners.SECOND_WRITE));
        assertEquals(Verdict.DUPLICATE, ledger.send(0, Owners.SECOND_WRITE));
        assertEquals(Verdict.RETRY, ledger.send(0, Owners.ORIGINAL));
    }

    @Test
    void claimedEarlier_takesEveryIdAsClaimedByThatCopy() {
        Ledger ledger = Ledger.claimedEarlier(2, Owners.ORIGINAL);
        assertEquals(Verdict.RETRY, ledger.send(0, Owners.ORIGINAL));
        assertEquals(Verdict.DUPLICATE, ledger.send(1, Owners.SECOND_WRITE));
    }

    @Test
    void scenariosInOrder_expectTheirOwnVerdicts() {
        Ledger ledger = new Ledger(10);
        for (Scenario scenario : Scenario.parse("all")) {
            for (int i = 0; i < 10; i++) {
                assertEquals(scenario.expected(), ledger.send(i, scenario.copy()), scenario + " id " + i);
            }
        }
    }
}
