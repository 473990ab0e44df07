package dev.dedup.loadtest.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dedup.wire.Verdict;
import java.util.List;
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
        Verdict[] expected = {Verdict.NEW, Verdict.RETRY, Verdict.DUPLICATE};
        List<Scenario> uniform = Scenario.parse("cold,retry,duplicate");
        for (int s = 0; s < uniform.size(); s++) {
            SendPlan plan = uniform.get(s).uniformPlan(10);
            for (int k = 0; k < plan.size(); k++) {
                assertEquals(
                        expected[s], ledger.send(plan.indexes()[k], plan.copies()[k]), uniform.get(s) + " id " + k);
            }
        }
    }
}
