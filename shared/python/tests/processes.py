"""Real processes for the tests: the agent jar and redis-server, on free loopback ports, stopped by PID.

The agent jar is ``$DEDUP_AGENT_JAR``, else ``agent/target/dedup-agent.jar`` of this repository (build it
with ``mvn -B -q -DskipTests package``); Java is ``$DEDUP_JAVA``, else ``$JAVA_HOME/bin/java``, else
``java``. A missing jar fails the tests, it does not skip them.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Optional

import pytest

REPO = Path(__file__).resolve().parents[3]
TOKEN = "python-client-test-token-0123456789"


def agent_jar() -> Path:
    jar = Path(os.environ.get("DEDUP_AGENT_JAR") or REPO / "agent" / "target" / "dedup-agent.jar").resolve()
    if not jar.is_file():
        pytest.fail(f"{jar} is missing: run `mvn -B -q -DskipTests package` first, or set DEDUP_AGENT_JAR")
    return jar


def java() -> str:
    if os.environ.get("DEDUP_JAVA"):
        return os.environ["DEDUP_JAVA"]
    if os.environ.get("JAVA_HOME"):
        return str(Path(os.environ["JAVA_HOME"]) / "bin" / "java")
    return "java"


def agent_environment() -> dict:
    """This environment without its ``DEDUP_*`` variables: the agent refuses any it does not know (such as
    ``DEDUP_AGENT_JAR``), and the tests give it its settings as flags."""
    return {k: v for k, v in os.environ.items() if not k.startswith("DEDUP_")}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fresh(prefix: str = "id") -> str:
    """An id nobody has claimed: every test uses its own."""
    return f"{prefix}-{uuid.uuid4()}"


def stop(process: subprocess.Popen, grace: float = 10.0) -> None:
    """SIGTERM, then SIGKILL after ``grace`` seconds; by PID, waiting for the exit."""
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)


class AgentProcess:
    """The agent jar in its own JVM on a free port, its data in ``workdir``, its output in ``agent.log``."""

    def __init__(self, workdir: Path, *args: str, ca_file: Optional[Path] = None) -> None:
        """``ca_file``: the agent speaks TLS (its ``args`` give ``--tls-cert-file`` and ``--tls-key-file``), and
        this file holds the authority that signed its certificate."""
        self.workdir = workdir
        self.args = list(args)
        self.ca_file = ca_file
        self.port = 0
        self.process: Optional[subprocess.Popen] = None
        workdir.mkdir(parents=True, exist_ok=True)
        self.log = workdir / "agent.log"

    @property
    def url(self) -> str:
        return f"{'https' if self.ca_file else 'http'}://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0, port: Optional[int] = None) -> AgentProcess:
        """Starts the agent on ``port``, else on a free one."""
        for _ in range(1 if port else 3):  # a free port may be taken between choosing and binding it: choose again
            self.port = port or free_port()
            cmd = [
                java(), "-Xmx128m", "-XX:+UseSerialGC", "-jar", str(agent_jar()),
                "--port", str(self.port),
                "--data-dir", str(self.workdir / "data"),
                "--embedded-slots", "65536",
                *self.args,
            ]  # fmt: skip
            with open(self.log, "ab") as out:
                self.process = subprocess.Popen(
                    cmd, stdout=out, stderr=subprocess.STDOUT, cwd=self.workdir, env=agent_environment()
                )
            if self._await_ready(timeout):
                return self
            if "Address already in use" not in self.output():
                break
        raise AssertionError(f"agent did not start ({self.process.poll()}):\n{self.output()}")

    def _await_ready(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        headers = {"Authorization": f"Bearer {TOKEN}"}
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            try:
                req = urllib.request.Request(self.url + "/health/ready", headers=headers)
                context = ssl.create_default_context(cafile=str(self.ca_file)) if self.ca_file else None
                with urllib.request.urlopen(req, timeout=2, context=context) as r:
                    if r.status == 200:
                        return True
            except (OSError, urllib.error.URLError):
                pass
            time.sleep(0.1)
        stop(self.process)
        return False

    def stop(self) -> None:
        if self.process is not None:
            stop(self.process)

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


class RedisProcess:
    """A ``redis-server`` on a free loopback port (never the machine's 6379), keeping nothing on disk unless
    ``aof`` (then a restart brings its claims back, with the topology record the agent checks)."""

    def __init__(self, workdir: Path, aof: bool = False) -> None:
        if shutil.which("redis-server") is None:
            pytest.fail("redis-server is not installed (apt-get install redis-server; .ci/run does it)")
        self.workdir = workdir
        self.aof = aof
        self.port = free_port()
        self.process: Optional[subprocess.Popen] = None
        workdir.mkdir(parents=True, exist_ok=True)

    @property
    def uri(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def start(self) -> RedisProcess:
        cmd = [
            "redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
            "--appendonly", "yes" if self.aof else "no", "--appendfsync", "always",
            "--dir", str(self.workdir), "--maxmemory-policy", "noeviction",
        ]  # fmt: skip
        with open(self.workdir / "redis.log", "ab") as out:
            self.process = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(64).startswith(b"+PONG"):
                        return self
            except OSError:
                time.sleep(0.05)
        raise AssertionError("redis-server did not start: " + (self.workdir / "redis.log").read_text())

    def kill(self) -> None:
        """SIGKILL, like a crashed host."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
