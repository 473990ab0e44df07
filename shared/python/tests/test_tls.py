"""An agent that speaks TLS (``--tls-cert-file``, ``--tls-key-file``, certificates made by ``openssl``): the client
trusts it through ``ca_file`` or ``DEDUP_CA_FILE``, and without them the handshake fails."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import List

import pytest

from dedup_client import DedupClient, DedupError, Verdict
from processes import AgentProcess, fresh

NS = "py-tls"


def openssl(workdir: Path, *args: str) -> None:
    done = subprocess.run(["openssl", *args], cwd=workdir, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"openssl {' '.join(args)}: {done.stderr}"


@pytest.fixture(scope="module")
def tls_agent(tmp_path_factory: pytest.TempPathFactory) -> AgentProcess:
    if shutil.which("openssl") is None:
        pytest.fail("openssl is needed to make the test's certificates (Debian: apt-get install openssl)")
    pki = tmp_path_factory.mktemp("pki")
    # Python 3.13 verifies strictly (VERIFY_X509_STRICT, RFC 5280): the authority states its key usage, the
    # agent's certificate names its authority's key.
    (pki / "ext.cnf").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\nauthorityKeyIdentifier=keyid\n")
    openssl(pki, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-days", "2",
            "-subj", "/CN=dedup python test CA", "-addext", "keyUsage=critical,keyCertSign,cRLSign")  # fmt: skip
    openssl(pki, "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj",
            "/CN=127.0.0.1")  # fmt: skip
    openssl(pki, "x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", "server.crt", "-days", "2", "-extfile", "ext.cnf")  # fmt: skip
    agent = AgentProcess(
        tmp_path_factory.mktemp("tls-agent"),
        "--tls-cert-file", str(pki / "server.crt"), "--tls-key-file", str(pki / "server.key"),
        ca_file=pki / "ca.crt",
    )  # fmt: skip
    agent.start()
    yield agent
    agent.stop()


def test_a_client_given_the_authority_claims_over_tls(tls_agent: AgentProcess) -> None:
    ids: List[str] = [fresh("tls") for _ in range(3)]
    with DedupClient(tls_agent.url, ca_file=str(tls_agent.ca_file)) as client:
        assert client.claim(NS, [(i, "p0:1") for i in ids]) == [Verdict.NEW] * 3
    environ = {"DEDUP_URL": tls_agent.url.replace("127.0.0.1", "localhost"), "DEDUP_CA_FILE": str(tls_agent.ca_file)}
    with DedupClient(environ=environ) as client:
        assert client.claim(NS, [(i, "p1:1") for i in ids]) == [Verdict.DUPLICATE] * 3


def test_without_the_authority_the_handshake_fails(tls_agent: AgentProcess) -> None:
    with DedupClient(tls_agent.url, environ={}) as client:
        with pytest.raises(DedupError) as raised:
            client.claim(NS, [(fresh("tls"), "p0:1")])
    assert raised.value.error == DedupError.UNREACHABLE
    assert "CERTIFICATE_VERIFY_FAILED" in str(raised.value), str(raised.value)


def test_a_ca_file_that_is_not_one_is_refused_naming_the_setting(tmp_path: Path) -> None:
    bogus = tmp_path / "ca.crt"
    bogus.write_text("not a certificate\n")
    with pytest.raises(ValueError, match=r"^DEDUP_CA_FILE: .* is not a readable PEM file of certificates"):
        DedupClient("https://127.0.0.1:1", environ={"DEDUP_CA_FILE": str(bogus)})
    with pytest.raises(ValueError, match=r"^ca_file: .*missing.* is not a readable PEM file"):
        DedupClient("https://127.0.0.1:1", ca_file=str(tmp_path / "missing.crt"), environ={})
