"""Input generators shared by the tests: Hypothesis strategies and seeded numpy data.

Hypothesis draws (`samples`) are small and tie-heavy: labels and scores come mostly from
tiny value sets so that every kind of pair (concordant, discordant, tied in score, in
label, in both) shows up in most examples. `random_data` makes larger seeded data sets for
the comparisons with scikit-learn, scipy and lifelines.
"""

from __future__ import annotations

import contextlib

import numpy as np
from hypothesis import strategies as st

__all__ = [
    "LABEL_KINDS",
    "SCORE_KINDS",
    "WEIGHT_KINDS",
    "random_data",
    "samples",
]

# "many": 13 integer levels, so that inputs of a dozen samples or more take the kernels'
# path for many label levels while keeping heavy ties.
LABEL_KINDS = ("bool", "binary", "ordinal", "many", "continuous")
SCORE_KINDS = ("tiny", "int", "bool", "float")
WEIGHT_KINDS = ("none", "int", "float")

# Small value sets make ties likely; -0.0 == 0.0 must count as a tie.
_TIE_FLOATS = (-2.5, -1.0, -0.0, 0.0, 0.5, 1.0, 3.25)
_BINARY_PAIRS = ((0, 1), (-1, 1), (2, 7), (0.0, 1.0))
# Weights: zero (== an absent row) or within [1e-3, 1e3]; subnormal weights would make
# products underflow, which no float implementation can be asked to count exactly.
_NICE_WEIGHTS = (0.0, 1e-3, 0.5, 1.0, 2.5, 3.0)


def _label_values(draw, kind: str):
    if kind == "bool":
        return st.booleans(), bool
    if kind == "binary":
        pair = draw(st.sampled_from(_BINARY_PAIRS))
        return st.sampled_from(pair), type(pair[0])
    if kind == "ordinal":
        return st.integers(-2, 2), int
    if kind == "many":
        return st.integers(-6, 6), int
    if kind == "continuous":
        return st.one_of(st.sampled_from(_TIE_FLOATS),
                         st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)), float
    raise ValueError(kind)


def _score_values(kind: str):
    if kind == "tiny":
        return st.sampled_from(_TIE_FLOATS), float
    if kind == "int":
        return st.integers(-2, 2), int
    if kind == "bool":
        return st.booleans(), bool
    if kind == "float":
        return st.one_of(st.sampled_from(_TIE_FLOATS),
                         st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)), float
    raise ValueError(kind)


def _weight_values(kind: str):
    if kind == "int":
        return st.integers(0, 4), np.int64
    if kind == "float":
        return st.one_of(st.sampled_from(_NICE_WEIGHTS), st.floats(1e-3, 1e3)), np.float64
    raise ValueError(kind)


@st.composite
def samples(draw, label_kind=None, weight_kind="none", score_kind=None,
            min_size=0, max_size=20):
    """``(y_true, y_score, sample_weight)`` numpy arrays of one drawn length.

    ``label_kind``: one of `LABEL_KINDS` (drawn when None); ``score_kind``: one of
    `SCORE_KINDS` (drawn when None); ``weight_kind``: "none" (``sample_weight`` is None),
    "int" (int64 weights 0..4) or "float" (float64, zero or in [1e-3, 1e3]).
    """
    n = draw(st.integers(min_size, max_size))
    label_kind = label_kind or draw(st.sampled_from(LABEL_KINDS))
    score_kind = score_kind or draw(st.sampled_from(SCORE_KINDS))
    ys, ytype = _label_values(draw, label_kind)
    ss, stype = _score_values(score_kind)
    y = np.array(draw(st.lists(ys, min_size=n, max_size=n)), dtype=ytype)
    s = np.array(draw(st.lists(ss, min_size=n, max_size=n)), dtype=stype)
    w = None
    if weight_kind != "none":
        ws, wtype = _weight_values(weight_kind)
        w = np.array(draw(st.lists(ws, min_size=n, max_size=n)), dtype=wtype)
    return y, s, w


def random_data(rng: np.random.Generator, n: int, label_kind: str = "binary",
                ties: str = "none", weights: str = "none"):
    """Seeded ``(y_true, y_score, sample_weight)`` with scores correlated with the labels.

    ``label_kind``: "binary" (0/1), "ordinal" (5 levels), "continuous" (normal);
    ``ties``: "none" (continuous scores) or "heavy" (scores on a grid of ~10 values, and
    continuous labels rounded to a grid as well); ``weights``: "none", "int" (1..3) or
    "float" (uniform in [0.1, 3]).
    """
    if label_kind == "binary":
        y = rng.integers(0, 2, n)
        if y.min() == y.max():  # keep both classes
            y[0], y[-1] = 0, 1
    elif label_kind == "ordinal":
        y = rng.integers(0, 5, n)
    elif label_kind == "continuous":
        y = rng.normal(size=n)
        if ties == "heavy":
            y = np.round(y * 2) / 2
    else:
        raise ValueError(label_kind)
    signal = (y - y.mean()) / (y.std() or 1.0)
    s = 0.8 * signal + rng.normal(size=n)
    if ties == "heavy":
        s = np.round(s * 2) / 2
    elif ties != "none":
        raise ValueError(ties)
    if weights == "none":
        w = None
    elif weights == "int":
        w = rng.integers(1, 4, n)
    elif weights == "float":
        w = rng.uniform(0.1, 3.0, n)
    else:
        raise ValueError(weights)
    return y, s, w


@contextlib.contextmanager
def dominance_node_sizes(leaf=2, fan=4):
    """`DominanceCounter`s created inside get leaves of ``leaf`` .. ``2 * leaf`` keys and
    score-tree nodes of up to ``fan`` entries (it reads ``_LEAF`` and ``_FAN`` when it is
    created): deep trees from a few dozen points."""
    from streamrank.structures import _cdominance
    saved = _cdominance._LEAF, _cdominance._FAN
    _cdominance._LEAF, _cdominance._FAN = leaf, fan
    try:
        yield
    finally:
        _cdominance._LEAF, _cdominance._FAN = saved
