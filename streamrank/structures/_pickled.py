"""Stand-ins for the classes of streamrank 0.1.0's pickles that are gone: they take the
pickled state and nothing else, for the loaders of old pickles
(`streamrank.metrics._legacy`) to read back as samples. No counting here."""

from __future__ import annotations


class _Pickled:
    """A stand-in that keeps whatever state pickle gives it (a dict, or a ``(dict,
    slots)`` pair for the ``__slots__`` classes of 0.1.0) as attributes."""

    def __setstate__(self, state):
        if isinstance(state, tuple) and len(state) == 2:
            state, slots = state
            state = {**(state or {}), **(slots or {})}
        if not isinstance(state, dict):
            raise ValueError(f"a {type(self).__name__} state that is not a dict "
                             f"({type(state).__name__})")
        self.__dict__.update(state)


class BinaryTree(_Pickled):
    """Its B+ tree (``streamrank.structures.binary.BinaryTree`` in 0.1.0), as pickled."""


class _Node(_Pickled):
    """A node of that tree, as pickled."""
