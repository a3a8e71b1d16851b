"""The layers of DESIGN.md, as import-linter contracts in pyproject.toml, hold (CI runs this);
and the algebra draws nothing until a notebook asks for a picture."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from importlinter.cli import lint_imports

PYPROJECT = Path(__file__).parents[1] / "pyproject.toml"


def test_import_contracts_are_kept(capsys):
    status = lint_imports(config_filename=str(PYPROJECT), no_cache=True, no_logo=True)
    out = capsys.readouterr().out
    assert status == 0, out
    assert "0 broken" in out and "kept" in out


def test_a_broken_layer_is_reported(tmp_path, capsys):
    """The checker sees real imports: with the layers upside down, the contract breaks."""
    layers = re.findall(r'"([^"]+)"', re.search(r"\nlayers = \[(.*?)\]", PYPROJECT.read_text(), re.S)[1])
    assert layers[0] == "layoutkit.cli" and layers[-1] == "layoutkit.errors"
    reversed_config = tmp_path / "pyproject.toml"
    reversed_config.write_text(
        '[tool.importlinter]\nroot_package = "layoutkit"\n\n[[tool.importlinter.contracts]]\n'
        f'name = "upside down"\ntype = "layers"\nlayers = {list(reversed(layers))!r}\n'.replace("'", '"'))
    assert lint_imports(config_filename=str(reversed_config), no_cache=True, no_logo=True) == 1
    assert "layoutkit.cli is not allowed to import layoutkit.core" in capsys.readouterr().out


def test_layouts_load_no_views_until_displayed():
    code = ("import sys, layoutkit\n"
            "layout = layoutkit.parse_layout('#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], "
            "warpsPerCTA = [1, 1], order = [1, 0]}>')\n"
            "assert not [m for m in sys.modules if m.startswith(('layoutkit.render', 'matplotlib'))]\n"
            "layout.tensor_shape((4, 8))\n"
            "print('<svg' in layout._repr_svg_())\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout == "True\n", run.stderr
