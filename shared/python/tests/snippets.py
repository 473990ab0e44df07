"""Running what can run of a snippet that needs a SparkSession: its imports and definitions, and its calls of
``dedup_client.spark`` checked against the functions' signatures."""

from __future__ import annotations

import ast
import inspect
from typing import Dict, List

from dedup_client import spark


def run_definitions(source: str, filename: str = "<doc>") -> Dict[str, object]:
    """Runs the imports and the function definitions of ``source`` (what needs no SparkSession); returns the names."""
    tree = ast.parse(source, filename)
    tree.body = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom, ast.FunctionDef))]
    scope: Dict[str, object] = {"__name__": "snippet"}
    exec(compile(tree, filename, "exec"), scope)
    return scope


def spark_calls(source: str) -> List[str]:
    """The calls of ``dedup_client.spark``'s functions in ``source``, each bound to the function's signature
    (placeholders for the values), so that a keyword the function lacks or a missing argument fails the test."""
    called = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in spark.__all__:
            fn = getattr(spark, node.func.id)
            inspect.signature(fn).bind(*[None] * len(node.args), **{k.arg: None for k in node.keywords})
            called.append(node.func.id)
    return called
