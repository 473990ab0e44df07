#!/bin/bash
# EMR bootstrap action: installs the agent on every node of the cluster as the systemd service
# dedup-agent, listening on 127.0.0.1:7070, so that each node's Spark executors ask their own agent.
# Runs as the hadoop user (with sudo) before the applications start. EMR 7.x (Amazon Linux 2023, Java 17).
#
#   aws emr create-cluster ... \
#     --bootstrap-actions Path=s3://BUCKET/dedup/bootstrap.sh,Args=[s3://BUCKET/dedup,dedup/agent-env] \
#     --configurations '[{"Classification":"spark-defaults","Properties":{"spark.executorEnv.DEDUP_URL":"http://127.0.0.1:7070"}}]'
#
# Arguments:
#   1. the S3 prefix holding dedup-agent.jar and dedup-agent.service (deploy/systemd/)
#   2. optional: the AWS Secrets Manager secret whose string is the agent's environment file
#      (DEDUP_REDIS=redis://dedup:<password>@..., DEDUP_WINDOW=..., see deploy/systemd/agent.env.example);
#      without it the agent keeps claims in its embedded store, which only a one-node cluster can share.
# DEDUP_ROOT (default empty) prefixes every path written, for the tests.
set -euo pipefail

prefix=${1:?usage: bootstrap.sh s3://bucket/prefix [secret-id]}
secret=${2:-}
root=${DEDUP_ROOT:-}

if ! id dedup >/dev/null 2>&1; then
  sudo useradd --system --no-create-home --shell /sbin/nologin dedup
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
aws s3 cp --only-show-errors "${prefix%/}/dedup-agent.jar" "$tmp/dedup-agent.jar"
aws s3 cp --only-show-errors "${prefix%/}/dedup-agent.service" "$tmp/dedup-agent.service"
sudo install -D -m 0644 "$tmp/dedup-agent.jar" "$root/opt/dedup/dedup-agent.jar"
sudo install -D -m 0644 "$tmp/dedup-agent.service" "$root/etc/systemd/system/dedup-agent.service"

# The environment file may hold the Redis password: written with umask 077, never on a command line.
sudo install -d -m 0755 "$root/etc/dedup"
if [ -n "$secret" ]; then
  (umask 077 && aws secretsmanager get-secret-value --secret-id "$secret" --query SecretString --output text > "$tmp/agent.env")
else
  (umask 077 && printf '%s\n' '# no secret given: the embedded store in /var/lib/dedup' > "$tmp/agent.env")
fi
sudo install -m 0600 "$tmp/agent.env" "$root/etc/dedup/agent.env"

sudo systemctl daemon-reload
sudo systemctl enable --now dedup-agent.service
