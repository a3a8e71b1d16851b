"""Helpers for the CUDA backend tests. An independent reader of a cubin's ELF: register counts
from ``.nv.info`` (EIATTR_REGCOUNT) and kernel names (``.text.<name>`` sections), used to
check the ptxas text report that compile_cuda parses."""

from __future__ import annotations

import struct

EIATTR_REGCOUNT = 0x2F
EIFMT_SVAL = 0x04


def sections(cubin: bytes) -> dict[str, bytes]:
    assert cubin[:4] == b"\x7fELF" and cubin[4] == 2, "expected a 64-bit ELF cubin"
    (shoff,) = struct.unpack_from("<Q", cubin, 0x28)
    entry_size, count, names_index = struct.unpack_from("<HHH", cubin, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", cubin, shoff + i * entry_size) for i in range(count)]
    names_offset = headers[names_index][4]
    result = {}
    for header in headers:
        start = names_offset + header[0]
        name = cubin[start:cubin.index(b"\0", start)].decode()
        result[name] = cubin[header[4]:header[4] + header[5]]
    return result


def symbol_names(cubin: bytes) -> list[str]:
    table, strings = sections(cubin)[".symtab"], sections(cubin)[".strtab"]
    names = []
    for offset in range(0, len(table), 24):
        (name_offset,) = struct.unpack_from("<I", table, offset)
        names.append(strings[name_offset:strings.index(b"\0", name_offset)].decode())
    return names


def register_counts(cubin: bytes) -> dict[str, int]:
    """Kernel name -> registers, from the EIATTR_REGCOUNT records of ``.nv.info``."""
    info, names = sections(cubin)[".nv.info"], symbol_names(cubin)
    counts, offset = {}, 0
    while offset < len(info):
        fmt, attribute = info[offset], info[offset + 1]
        if fmt == EIFMT_SVAL:
            (size,) = struct.unpack_from("<H", info, offset + 2)
            if attribute == EIATTR_REGCOUNT:
                symbol, registers = struct.unpack_from("<II", info, offset + 4)
                counts[names[symbol]] = registers
            offset += 4 + size
        else:
            offset += 4
    return counts


def kernel_names(cubin: bytes) -> set[str]:
    return {name[len(".text."):] for name in sections(cubin) if name.startswith(".text.")}


# ---- fixtures shared by the CUDA tests ------------------------------------------------

import shutil  # noqa: E402
import types  # noqa: E402

import pytest  # noqa: E402


@pytest.fixture
def elf() -> types.SimpleNamespace:
    """The independent cubin reader above, for the tests."""
    return types.SimpleNamespace(register_counts=register_counts, kernel_names=kernel_names,
                                 sections=sections)


def _compiler_or_skip() -> None:
    from layoutkit.backends.cuda.compile import available_compilers

    if not available_compilers():
        pytest.skip("no CUDA compiler: pip install 'layoutkit[cuda]' (NVRTC) failed and no nvcc on PATH")


@pytest.fixture
def cuda_compiler() -> None:
    """Skip (saying why) only when neither NVRTC nor nvcc can be used on this machine."""
    _compiler_or_skip()


def parse_generic(text: str):
    """Parse MLIR text with xDSL's own parser and upstream dialects (generic op syntax)."""
    from xdsl.context import Context
    from xdsl.dialects import get_all_dialects
    from xdsl.parser import Parser

    context = Context()
    for name, factory in get_all_dialects().items():
        context.register_dialect(name, factory)
    module = Parser(context, text).parse_module()
    module.verify()
    return module


@pytest.fixture
def parse_upstream():
    return parse_generic


@pytest.fixture
def nvcc_on_path() -> bool:
    return shutil.which("nvcc") is not None and shutil.which("ptxas") is not None


def _load_host_harness():
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location(
        "layoutkit_tests_cuda_host_harness", Path(__file__).with_name("host_harness.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def host():
    """Runs emitted kernels on the CPU through g++ (see host_harness.py)."""
    harness = _load_host_harness()
    if not harness.compiler_available():
        pytest.skip("no g++ on PATH to build the host harness")
    return harness
