"""The one layout attribute: any family's layout inside IR.

``#ttg.blocked<...>``, ``#ttg.slice<...>``, ``#ttg.dot_op<...>``, every shared encoding,
``#ttg.linear<...>``, ``#iree_vector_ext.nested_layout<...>`` and ``#rock.transform_map<...>``
are all a :class:`LayoutAttr`: an xDSL attribute whose ``layout`` is the family value
:func:`layoutkit.parse_layout` makes (the family's one parser), printed back in the family's
own syntax. A pass reads ``value.type.encoding.layout`` and has the whole algebra::

    #blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
    ... : tensor<16x64xf16, #blocked>      ->  type.encoding.layout.size_per_thread == (1, 4)

Aliases (``#blocked = ...`` above the module, ``#mma`` inside a ``dot_op``'s ``parent``)
resolve as MLIR resolves them. Attributes that are not layouts (``#ttg.shared_memory``,
``#loc``, another dialect's) are kept as written (see :mod:`layoutkit.ir.context`).
"""

from __future__ import annotations

from typing import Any

from xdsl.ir import Data
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer

from layoutkit.errors import LayoutError
from layoutkit.ir.registry import register


class LayoutAttr(Data[Any]):
    """A layout of any family inside IR; ``layout`` is its family value.

    One subclass per attribute name (xDSL finds attributes by name); ``LayoutAttr.of``
    picks it from the value, so ``LayoutAttr.of(parse_layout(text))`` prints ``text``.
    """

    name = "layoutkit.layout"

    @property
    def layout(self) -> Any:
        return self.data

    @classmethod
    def of(cls, layout: Any) -> LayoutAttr:
        """The attribute holding ``layout`` (a value of any family)."""
        text = str(layout)
        name = text[1:text.index("<")] if text.startswith("#") and "<" in text else None
        attr_class = _CLASSES.get(name)
        if attr_class is None:
            raise LayoutError(f"layout: {type(layout).__name__} has no attribute syntax "
                              f"(its text is {text[:60]!r})")
        return attr_class(layout)

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> Any:
        from layoutkit.layouts.parse import parse_layout

        start = parser.pos
        if parser._current_token.text != "<":
            parser.raise_error(f"#{cls.name}: expected '<' and the layout's parameters")
        body = parser._parse_dialect_symbol_body()
        aliases = {alias[1:]: str(value.data) for alias, value in parser.attribute_aliases.items()
                   if isinstance(value, LayoutAttr)}
        try:
            return parse_layout(f"#{cls.name}<{body}>", aliases=aliases)
        except LayoutError as err:
            parser.raise_error(str(err), start, parser.pos)

    def print_parameter(self, printer: Printer) -> None:
        text = str(self.data)
        printer.print_string(text[text.index("<"):])


_CLASSES: dict[str, type[LayoutAttr]] = {}


def _layout_names() -> dict[str, list[str]]:
    """Dialect name -> the names of its layout attributes, from the families' registries."""
    from layoutkit.layouts.triton import PREFIXES, encoding_classes

    names = {prefix.rstrip("."): sorted(encoding_classes()) for prefix in PREFIXES}
    names["iree_vector_ext"] = ["nested_layout"]
    names["rock"] = ["transform_map"]
    return names


def _define_attributes() -> None:
    for dialect, names in _layout_names().items():
        classes = []
        for short in names:
            full = f"{dialect}.{short}"
            attr_class = irdl_attr_definition(type(f"LayoutAttr[{full}]", (LayoutAttr,), {
                "name": full, "__module__": __name__, "__qualname__": f"LayoutAttr[{full}]"}))
            _CLASSES[full] = attr_class
            classes.append(attr_class)
        register(dialect, attributes=classes)


_define_attributes()

__all__ = ["LayoutAttr"]
