"""The package from src/ and the user jobs from examples/ on the path, without installing either. Here rather
than in pytest's ``pythonpath`` setting, which needs pytest 7: Debian bullseye's, which runs the suite on
Python 3.9, is 6.0."""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE / "src"), str(HERE / "examples")]
