package dev.dedup.agent.plan;

import dev.dedup.agent.config.value.Durations;
import java.util.List;
import java.util.Locale;

/**
 * A plan as the {@code kustomization.yaml} of an overlay of deploy/kubernetes/redis-cluster: the pod count
 * (a master and a replica for each of {@link Plan#clusterMasters} masters), and each pod's memory and volume
 * for the plan's {@code maxmemory}. The names it patches are those of that directory (the StatefulSet
 * dedup-redis-cluster, its one container, its one volume claim template); the deploy module's ManifestsIT
 * renders this overlay with kustomize against them.
 */
final class KustomizeOverlay {

    /** The StatefulSet, and the `replicas:` name that also sets the count the bootstrap Job joins. */
    static final String STATEFULSET = "dedup-redis-cluster";

    private KustomizeOverlay() {}

    static String render(Plan p, int groups, List<String> args) {
        int masters = p.clusterMasters(groups);
        String memory = PlanCommand.gibibytes(p.podMemoryLimit());
        String volume = PlanCommand.gibibytes(p.podDisk());
        StringBuilder s = new StringBuilder();
        s.append("# java -jar dedup-agent.jar plan ")
                .append(String.join(" ", args))
                .append('\n');
        s.append(String.format(
                Locale.ROOT,
                "# %s ids a second for a %s window, %s: %s of claims.%n",
                PlanCommand.count(p.idsPerSecond()),
                Durations.format(p.window()),
                p.layout().title,
                PlanCommand.bytes(p.redisBytes())));
        s.append(String.format(
                Locale.ROOT,
                "# %d masters of maxmemory %s with a replica each; the busiest holds %d of the %d groups"
                        + " (every agent's%n# --redis-cluster-groups), %.0f %% full after a window.%n",
                masters,
                PlanCommand.bytes(p.shardMaxMemory()),
                Plan.busiestMasterGroups(groups, masters),
                groups,
                100 * p.busiestMasterBytes(groups, masters) / p.shardMaxMemory()));
        s.append("""
                #
                # Save as kustomization.yaml in a directory beside deploy/kubernetes/redis-cluster, then
                #   kubectl apply -k <that directory>
                apiVersion: kustomize.config.k8s.io/v1beta1
                kind: Kustomization
                resources:
                  - ../redis-cluster
                replicas:
                  # pods: the masters and their replicas
                  - name: %s
                    count: %d
                patches:
                  # One shard's pod: start-redis-cluster.sh sets maxmemory to 70 %% of the memory limit; the
                  # volume holds the AOF, an RDB and the rewrite's temporary file.
                  - target:
                      kind: StatefulSet
                      name: %s
                    patch: |-
                      - op: replace
                        path: /spec/template/spec/containers/0/resources/requests/memory
                        value: %s
                      - op: replace
                        path: /spec/template/spec/containers/0/resources/limits/memory
                        value: %s
                      - op: replace
                        path: /spec/volumeClaimTemplates/0/spec/resources/requests/storage
                        value: %s
                """.formatted(STATEFULSET, 2 * masters, STATEFULSET, memory, memory, volume));
        return s.toString();
    }
}
