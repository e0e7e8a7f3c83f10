"""Types of the compiled `streamrank.structures._cbtree` (see _cbtree.pyx, _btree.pxi)."""

from typing import Any

#: The weight held up to which the tree's placement moments in 128 bits are exact.
MO_EXACT_MAX: int

class _BTree:
    distinct: int
    def raw(self) -> tuple[tuple[int, int, int], bytes, tuple[Any, ...]]: ...
    def set_raw(self, layout: tuple[int, int, int], nodes: bytes,
                header: tuple[Any, ...]) -> bool: ...
    def _check(self) -> tuple[int, list[Any], list[int], list[int], int]: ...
