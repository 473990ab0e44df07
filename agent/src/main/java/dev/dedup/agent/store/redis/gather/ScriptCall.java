package dev.dedup.agent.store.redis.gather;

import dev.dedup.agent.store.redis.access.RedisPort.Op;
import java.util.Arrays;

/**
 * A script call as its layout finished it: the planned call (shard, buckets, items), its op, the keys it declares
 * after its buckets' (those every call of its kind on the shard declares: a table's state), and its arguments, the
 * call's items among them at the places its {@link CallForm} says.
 */
public record ScriptCall(CallPlan.Call call, Op op, byte[][] moreKeys, byte[][] args) {

    /** The keys the script is sent: the buckets' keys, then {@code moreKeys}. */
    public byte[][] keys() {
        byte[][] own = call.keys();
        byte[][] k = Arrays.copyOf(own, own.length + moreKeys.length);
        System.arraycopy(moreKeys, 0, k, own.length, moreKeys.length);
        return k;
    }

    /**
     * Whether {@code next} may go out merged with this call: the same op, the same keys after the buckets' and the
     * same arguments but for what the items make.
     */
    boolean joins(ScriptCall next, CallForm form) {
        return next.op == op && Arrays.deepEquals(next.moreKeys, moreKeys) && form.sameOtherArgs(next.args, args);
    }
}
