"""lit configuration for layoutkit's FileCheck tests (tests/filecheck/**/*.mlir).

Run them all with ``lit -v tests/filecheck`` (pytest runs them too: test_lit.py), one with
``lit -v tests/filecheck/opt/cse.mlir``. RUN lines see ``layoutkit`` and ``filecheck`` from
the virtualenv of the Python running lit, ``%examples`` is examples/kernels, and ``not`` is
lit's own (it inverts an exit status).
"""

import os
import shutil
import sys

import lit.formats

config.name = "layoutkit"  # noqa: F821 - lit provides config and lit_config
config.test_format = lit.formats.ShTest(execute_external=False)  # noqa: F821
config.suffixes = [".mlir"]  # noqa: F821
config.excludes = ["inputs"]  # noqa: F821 - files that RUN lines read, not tests
config.test_source_root = os.path.dirname(__file__)  # noqa: F821

_BIN = os.path.dirname(sys.executable)
for _tool in ("layoutkit", "filecheck"):
    _path = shutil.which(_tool, path=_BIN) or shutil.which(_tool)
    if _path is None:
        lit_config.fatal(f"{_tool} is not installed: pip install -e '.[test]'")  # noqa: F821
    # the word alone, not inside a path or another name (e.g. /home/me/layoutkit/tests)
    config.substitutions.append((rf"(?<![\w/.%-]){_tool}(?![\w/.-])", f'"{_path}"'))  # noqa: F821
config.substitutions.append(  # noqa: F821
    ("%examples", os.path.join(os.path.dirname(__file__), "..", "..", "examples", "kernels")))
