#!/usr/bin/env python3
"""How long an embedded agent takes to be ready after a kill -9, and what it holds in memory then.

After an unclean stop the agent counts the claims of its slot file at start (docs/embedded-store.md). This fills a
fresh store with CLAIMS claims, kills the agent with SIGKILL, drops the page cache when run as root (so the count
reads the disk), starts the agent again on the same file and prints the time to /health/ready, the agent's resident
memory, and the occupied slots it counted.

    python3 loadtest/restart-after-kill.py [JAR]

JAR defaults to agent/target/dedup-agent.jar. Settings by environment: SLOTS (default 67108864: a 1 GiB file),
CLAIMS (500000), DATA_DIR (a fresh directory under /var/tmp, removed at the end), PORT (17070; PORT+1 for ops).
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

JAR = sys.argv[1] if len(sys.argv) > 1 else "agent/target/dedup-agent.jar"
SLOTS = os.environ.get("SLOTS", "67108864")
CLAIMS = int(os.environ.get("CLAIMS", "500000"))
PORT = int(os.environ.get("PORT", "17070"))
BATCH = 5000


READY_SECONDS = 300
agents = []


def start(data_dir, log):
    agent = subprocess.Popen(
        ["java", "-jar", JAR, "--port", str(PORT), "--ops-port", str(PORT + 1),
         "--data-dir", data_dir, "--embedded-slots", SLOTS],
        stdout=log, stderr=subprocess.STDOUT)
    agents.append(agent)
    began = time.monotonic()
    while time.monotonic() - began < READY_SECONDS:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{PORT + 1}/health/ready", timeout=1) as r:
                if r.status == 200:
                    return agent, time.monotonic() - began
        except OSError:
            pass
        if agent.poll() is not None:
            sys.exit(f"the agent exited with {agent.returncode}: see {log.name}")
        time.sleep(0.01)
    sys.exit(f"the agent was not ready within {READY_SECONDS} s: see {log.name}")


def resident_mib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) // 1024
    return -1


def main():
    data_dir = os.environ.get("DATA_DIR") or tempfile.mkdtemp(prefix="dedup-restart-", dir="/var/tmp")
    log = tempfile.NamedTemporaryFile(prefix="dedup-restart-", suffix=".log", delete=False)
    measured = False
    try:
        agent, _ = start(data_dir, log)
        for b in range(0, CLAIMS, BATCH):
            items = [{"id": f"id-{b + i}", "owner": "o"} for i in range(min(BATCH, CLAIMS - b))]
            body = json.dumps({"ns": "restart", "items": items}).encode()
            request = urllib.request.Request(
                f"http://127.0.0.1:{PORT}/v1/claims", body, {"Content-Type": "application/json"})
            with urllib.request.urlopen(request) as r:
                r.read()
        os.kill(agent.pid, signal.SIGKILL)
        agent.wait()
        cache = "cold"
        try:
            subprocess.run(["sync"], check=True)
            with open("/proc/sys/vm/drop_caches", "w") as drop:
                drop.write("3\n")
        except OSError:
            cache = "warm (not root: the page cache was not dropped)"
        agent, seconds = start(data_dir, log)
        with urllib.request.urlopen(f"http://127.0.0.1:{PORT}/v1/stats") as r:
            occupied = json.load(r)["store"]["occupied_slots"]
        print(f"{os.path.basename(JAR)}: ready {seconds:.2f} s after kill -9, page cache {cache}, "
              f"resident {resident_mib(agent.pid)} MiB, {occupied} occupied slots counted")
        measured = True
        agent.terminate()
        agent.wait()
    finally:
        for running in agents:
            if running.poll() is None:
                running.kill()
                running.wait()
        if not os.environ.get("DATA_DIR"):
            shutil.rmtree(data_dir, ignore_errors=True)
        log.close()
        if measured:
            os.unlink(log.name)


if __name__ == "__main__":
    main()
