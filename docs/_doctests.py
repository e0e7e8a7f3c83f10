"""A griffe extension for the API reference: a docstring's examples outside an
``Examples`` section (a paragraph of ``>>>`` lines and their output) render as Python
code, as the ``Examples`` section renders them, instead of as Markdown quotes."""

from __future__ import annotations

import re

import griffe

_BLOCK = re.compile(r"(?m)^(?P<indent>[ ]*)>>> .*(?:\n(?P=indent)(?!\s*$).*)*")


class BareDoctests(griffe.Extension):
    def on_instance(self, *, obj, **kwargs) -> None:
        doc = obj.docstring
        if doc is None or ">>>" not in doc.value:
            return
        head, sep, tail = doc.value.partition("\nExamples\n--------")
        doc.value = _BLOCK.sub(_fence, head) + sep + tail


def _fence(match: re.Match) -> str:
    indent = match.group("indent")
    return f"{indent}```pycon\n{match.group(0)}\n{indent}```"
