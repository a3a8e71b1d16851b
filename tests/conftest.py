"""Shared test set-up: under pytest's importlib mode, the helper modules of every test area
(``coords_support``, ``convert_support``, ``cute_reference``, ...) and of this folder
(``layout_errors``) are importable by name."""

import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
for _folder in [_HERE, *sorted(p for p in _HERE.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))]:
    if str(_folder) not in sys.path:
        sys.path.insert(0, str(_folder))
