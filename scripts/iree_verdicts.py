"""Ask IREE's ``iree-opt`` which nested layouts and vector/tensor types it accepts.

Not run by CI. Needs ``pip install iree-base-compiler==3.13.0`` (in its own virtualenv; the
``iree-opt`` binary runs on a CPU). Each case is one ``iree_vector_ext.to_layout`` op carrying
a layout on a value of a type; iree-opt parses and verifies it. The verdicts go to
``tests/iree/goldens/iree_verdicts.json``, which ``tests/iree/test_iree_verdicts.py`` compares
layoutkit against::

    python scripts/iree_verdicts.py --iree-opt /work/venv-iree/bin/iree-opt
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
from pathlib import Path

FIELDS = ("subgroup_tile", "batch_tile", "outer_tile", "thread_tile", "element_tile",
          "subgroup_strides", "thread_strides")
ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "iree" / "goldens" / "iree_verdicts.json"

# the consumer layout of IREE's gpu_vector_alloc test, with its thread strides made distinct
BASE = ([1, 1], [1, 1], [1, 1], [4, 16], [4, 1], [0, 0], [16, 1])
ELEMENT_TYPES = (
    "f16", "bf16", "f32", "f64", "tf32", "index", "i1", "i4", "i8", "i32", "i64", "si8", "ui8",
    "f8E4M3FN", "f8E5M2", "f8E4M3FNUZ", "f8E5M2FNUZ", "f8E4M3B11FNUZ", "f8E4M3", "f8E3M4",
    "f8E8M0FNU", "f6E2M3FN", "f6E3M2FN", "f4E2M1FN", "complex<f32>",
)


def layout_text(fields) -> str:
    body = ", ".join(f"{name} = [{', '.join(map(str, value))}]" for name, value in zip(FIELDS, fields))
    return f"#iree_vector_ext.nested_layout<{body}>"


def cases() -> list[dict]:
    out = [{"name": f"element {t}", "layout": layout_text(BASE), "type": f"vector<16x16x{t}>"}
           for t in ELEMENT_TYPES]
    out += [
        {"name": "tensor type", "layout": layout_text(BASE), "type": "tensor<16x16xf16>"},
        {"name": "tensor of index", "layout": layout_text(BASE), "type": "tensor<16x16xindex>"},
        {"name": "dynamic tensor", "layout": layout_text(BASE), "type": "tensor<?x16xf16>"},
        {"name": "scalable vector", "layout": layout_text(BASE), "type": "vector<16x[16]xf16>"},
        {"name": "rank 0 vector", "layout": layout_text(([],) * 7), "type": "vector<f16>"},
        {"name": "rank 0 tensor", "layout": layout_text(([],) * 7), "type": "tensor<f32>"},
        {"name": "rank 0 layout on rank 1", "layout": layout_text(([],) * 7), "type": "vector<1xf16>"},
        {"name": "zero thread strides (gpu_vector_alloc)",
         "layout": layout_text(([1, 1], [1, 1], [1, 1], [4, 16], [4, 1], [0, 0], [0, 0])),
         "type": "vector<16x16xf16>"},
        {"name": "zero subgroup stride",
         "layout": layout_text(([2, 1], [1, 1], [1, 1], [4, 16], [2, 1], [0, 0], [16, 1])),
         "type": "vector<16x16xf16>"},
        {"name": "non-power-of-two tiles",
         "layout": layout_text(([1, 1], [1, 1], [1, 1], [3, 5], [2, 3], [0, 0], [5, 1])),
         "type": "vector<6x15xf16>"},
        {"name": "shape mismatch", "layout": layout_text(BASE), "type": "vector<16x32xf16>"},
        {"name": "rank mismatch", "layout": layout_text(BASE), "type": "vector<256xf16>"},
        {"name": "fields of different ranks",
         "layout": layout_text(([1, 1], [1, 1], [1], [4, 16], [4, 1], [0, 0], [16, 1])),
         "type": "vector<16x16xf16>"},
        {"name": "overlapping thread strides",
         "layout": layout_text(([1, 1], [1, 1], [1, 1], [4, 16], [4, 1], [0, 0], [1, 1])),
         "type": "vector<16x16xf16>"},
        {"name": "zero tile",
         "layout": layout_text(([1, 1], [0, 1], [1, 1], [4, 16], [4, 1], [0, 0], [16, 1])),
         "type": "vector<0x16xf16>"},
    ]
    return out


def verdict(iree_opt: str, case: dict) -> dict:
    value_type = case["type"]
    text = (f"#l = {case['layout']}\n"
            f"func.func @f(%a: {value_type}) -> {value_type} {{\n"
            f"  %0 = iree_vector_ext.to_layout %a to layout(#l) : {value_type}\n"
            f"  return %0 : {value_type}\n}}\n")
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(text)
    run = subprocess.run([iree_opt, f.name], capture_output=True, text=True)
    Path(f.name).unlink()
    error = next((line.split("error: ", 1)[1] for line in run.stderr.splitlines() if "error: " in line), None)
    return {**case, "accepted": run.returncode == 0, "error": error}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iree-opt", default="iree-opt")
    args = parser.parse_args()
    compiler = str(Path(args.iree_opt).with_name("iree-compile"))
    version = subprocess.run([compiler, "--version"], capture_output=True, text=True).stdout
    results = [verdict(args.iree_opt, case) for case in cases()]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"iree_version": " ".join(version.split()), "cases": results},
                              indent=1) + "\n", encoding="utf-8")
    for r in results:
        print(f"{'accepted' if r['accepted'] else 'rejected'}  {r['name']:40} {r['error'] or ''}")
    print(f"wrote {OUT} ({len(results)} cases)")


if __name__ == "__main__":
    main()
