"""Every signature docs/python.md and the package's README write in backquotes, ``name(params)``, against the
function it names: each parameter it writes is one the function takes, of the same kind (positional or after
``*``), and each default it writes is the function's own. A signature written with ``...`` (``...the same``)
is checked up to it."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from typing import Dict, List, Tuple

import pytest

import dedup_client
from dedup_client import kafka, spark
from processes import REPO

PAGES = [REPO / "docs" / "python.md", REPO / "shared" / "python" / "README.md"]

#: ``name(params)`` in backquotes, possibly split over two lines of a paragraph, with an optional return type.
SIGNATURE = re.compile(r"`([A-Za-z_][A-Za-z_0-9]*)\(([^`()]*(?:\([^`()]*\)[^`()]*)*)\)(?: -> [^`]+)?`", re.S)


def documented() -> List[Tuple[str, str, str]]:
    """(page, name, params) of every written signature that has a default or a ``*``: the ones with claims."""
    found = []
    for page in PAGES:
        for m in SIGNATURE.finditer(page.read_text(encoding="utf-8")):
            params = " ".join(m.group(2).split())
            if "=" in params or "*" in params:
                found.append((page.name, m.group(1), params))
    return found


def function(name: str):
    for home in (dedup_client, spark, kafka):
        if hasattr(home, name):
            return getattr(home, name)
    raise AssertionError(f"the docs write a signature of {name}, which dedup_client does not have")


def written(params: str) -> Dict[str, Tuple[str, object]]:
    """The written parameters: name -> (kind, default source or None)."""
    params = params.split("...")[0].rstrip(", ")
    params = re.sub(r"(\w+)=(?=\s*(?:,|$))", r"\1=UNSTATED", params)  # "topic=": named, its value not written
    args = ast.parse(f"def f({params}): pass").body[0].args
    out: Dict[str, Tuple[str, object]] = {}
    positional = args.posonlyargs + args.args
    pos_defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    for a, d in zip(positional, pos_defaults):
        out[a.arg] = ("positional", None if d is None else ast.unparse(d))
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        out[a.arg] = ("keyword", None if d is None else ast.unparse(d))
    return out


def kind(p: inspect.Parameter) -> str:
    return "keyword" if p.kind is inspect.Parameter.KEYWORD_ONLY else "positional"


def same_default(written_source: str, real: object) -> bool:
    """A literal compares by value; a name (``time.sleep``) must be the same object; a lambda must give the
    same answer when called."""
    try:
        return ast.literal_eval(written_source) == real
    except ValueError:
        pass
    first = written_source.split(".", 1)[0]
    scope = {first: importlib.import_module(first)} if first.isidentifier() and first != "lambda" else {}
    value = eval(written_source, scope)  # the docs' own text, from this repository
    if getattr(value, "__name__", "") == "<lambda>":
        return callable(real) and value() == real()
    return value is real


def test_theDocsWriteSignatures() -> None:
    names = {name for _, name, _ in documented()}
    assert {"DedupClient", "claim_and_keep", "consume"} <= names, names


@pytest.mark.parametrize("page,name,params", documented(), ids=lambda x: x if isinstance(x, str) else None)
def test_aWrittenSignature_isTheFunctions(page: str, name: str, params: str) -> None:
    actual = inspect.signature(function(name)).parameters
    for pname, (pkind, pdefault) in written(params).items():
        assert pname in actual, f"{page}: {name}({params}) writes {pname}, which {name} does not take"
        real = actual[pname]
        assert pkind == kind(real), f"{page}: {name} writes {pname} as {pkind}; it is {kind(real)}"
        if real.default is inspect.Parameter.empty:
            assert pdefault is None, f"{page}: {name} writes {pname}={pdefault}; it has no default"
            continue
        assert pdefault is not None, f"{page}: {name} writes {pname} with no default; its default is {real.default!r}"
        if pdefault == "UNSTATED":
            continue
        assert same_default(pdefault, real.default), (
            f"{page}: {name} writes {pname}={pdefault}; its default is {real.default!r}"
        )
