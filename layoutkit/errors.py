"""The one error type a user of layoutkit can cause."""

from __future__ import annotations


class LayoutError(ValueError):
    """A user-caused error: bad layout text, an invalid field, a shape a layout cannot cover.

    The message names the offending field and quotes the offending text, e.g.
    ``sizePerThread: expected a list of positive integers, got '[1, x]'``.
    """


def quote(text: object, limit: int = 80) -> str:
    """``text`` as a short single-quoted excerpt for error messages."""
    s = str(text)
    if len(s) > limit:
        s = s[: limit - 3] + "..."
    return "'" + s + "'"


#: the optional package each extra provides (``pip install 'layoutkit[extra]'``)
EXTRAS = {"matplotlib": "plot", "xdsl": "ir", "ml_dtypes": "ir", "cuda": "cuda", "nvidia": "cuda"}


def missing_extra(error: ImportError, what: str) -> LayoutError:
    """The LayoutError for ``what`` (e.g. ``"simulate"``) failing on a missing optional
    package: names the package and the extra that installs it."""
    module = (getattr(error, "name", None) or "").split(".")[0] or "?"
    extra = EXTRAS.get(module)
    install = f"pip install 'layoutkit[{extra}]'" if extra else f"pip install {module}"
    return LayoutError(f"{what} needs the optional package {quote(module)}: {install}")


def require_extra(module: str, what: str) -> None:
    """A :func:`missing_extra` LayoutError unless ``module`` can be imported."""
    import importlib

    try:
        importlib.import_module(module)
    except ImportError as err:
        if getattr(err, "name", None) is None:
            err.name = module
        raise missing_extra(err, what) from None
