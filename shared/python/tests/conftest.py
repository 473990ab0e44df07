"""Fixtures: the agent (and whatever else a test starts) as real processes; see :mod:`processes`."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator, List

import pytest

from dedup_client import DedupClient
from processes import AgentProcess, RedisProcess


def pytest_configure(config: pytest.Config) -> None:
    # Maven passes --basetemp=target/pytest-tmp (the processes' logs stay there), and a module without
    # Java has no target/ yet.
    if config.option.basetemp:
        Path(config.option.basetemp).parent.mkdir(parents=True, exist_ok=True)


@pytest.fixture(scope="session")
def agent(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AgentProcess]:
    """One agent on the embedded store for every test that only claims fresh ids."""
    process = AgentProcess(tmp_path_factory.mktemp("agent"), "--max-batch", "1000").start()
    yield process
    process.stop()


@pytest.fixture
def client(agent: AgentProcess) -> Iterator[DedupClient]:
    with DedupClient(agent.url) as c:
        yield c


@pytest.fixture
def processes() -> Iterator[List[object]]:
    """Processes a test starts; each is stopped when the test ends, whatever happened."""
    started: List[object] = []
    yield started
    for p in reversed(started):
        if isinstance(p, AgentProcess):
            p.stop()
        elif isinstance(p, RedisProcess):
            p.kill()
