"""The package's version is written once, in ``dedup_client.__version__``: the packaging reads it from there,
and it is the version of the Maven build that ships the package beside the agent and the Java libraries."""

from __future__ import annotations

import warnings
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import setuptools

import dedup_client

PYTHON = Path(__file__).resolve().parents[1]
POM = "{http://maven.apache.org/POM/4.0.0}"


def test_theVersion_isTheMavenProjects() -> None:
    project = ET.parse(PYTHON / "pom.xml").getroot()
    version = project.find(f"{POM}version")
    if version is None:
        version = project.find(f"{POM}parent/{POM}version")
    assert version is not None and version.text
    assert dedup_client.__version__ == version.text


def test_thePackaging_takesTheVersionFromThePackage() -> None:
    if int(setuptools.__version__.split(".")[0]) < 61:  # Debian bullseye's 52, beside Python 3.9
        pytest.skip(f"setuptools {setuptools.__version__} cannot read pyproject.toml: 61 and later, which the build needs")
    from setuptools.config.pyprojecttoml import read_configuration

    # setuptools reads pyproject.toml as a build would, the dynamic version included.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # setuptools 65 calls its pyproject.toml reading a beta
        project = read_configuration(PYTHON / "pyproject.toml", expand=True)["project"]
    assert "version" in project.get("dynamic", []), "pyproject.toml must not write a version of its own"
    assert project["version"] == dedup_client.__version__
