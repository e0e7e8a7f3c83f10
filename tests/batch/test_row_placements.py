"""`streamrank.batch._cplacements.row_placements` (behind `delong.row_placements` and the
paired DeLong test): every row's half-pair placement against the O(n^2) definition, with
heavy ties and unit, integer and float weights; float placements equal to the running
sums numpy's ``cumsum`` gives, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamrank.batch import delong
from streamrank.batch._cplacements import row_placements


def _oracle(s, pos, w):
    """O(n^2): a positive's placement is the negatives' weight below it twice plus the
    tied ones once; a negative's the positives' weight above it twice plus the tied."""
    w = np.ones(s.size, dtype=np.int64) if w is None else w
    vals = []
    for i in range(s.size):
        other = ~pos if pos[i] else pos
        if pos[i]:
            below = (s < s[i]) & other
        else:
            below = (s > s[i]) & other
        tied = (s == s[i]) & other
        vals.append(2 * w[below].sum() + w[tied].sum())
    return np.array(vals)


def _cumsum_reference(s, pos, w):
    """The placements from numpy's running sums in score order (the float reference)."""
    order = np.argsort(s)
    ss, lab, ws = s[order], pos[order], w[order]
    starts = np.flatnonzero(np.concatenate(([True], ss[1:] != ss[:-1])))
    ends = np.append(starts[1:], ss.size)
    cp = np.concatenate(([0], np.cumsum(np.where(lab, ws, 0))))
    cn = np.concatenate(([0], np.cumsum(np.where(lab, 0, ws))))
    p_before, p_in = cp[starts], cp[ends] - cp[starts]
    n_before, n_in = cn[starts], cn[ends] - cn[starts]
    w1 = cp[-1]
    lengths = ends - starts
    vals = np.empty(s.size)
    vals[order] = np.where(lab, np.repeat(2 * n_before + n_in, lengths),
                           np.repeat(2 * (w1 - p_before) - p_in, lengths))
    return vals, float(cp[-1]), float(cn[-1])


@st.composite
def rows(draw):
    n = draw(st.integers(1, 60))
    levels = draw(st.integers(1, 8))
    s = np.array(draw(st.lists(st.integers(0, levels - 1), min_size=n, max_size=n)),
                 dtype=np.float64) / levels
    pos = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    kind = draw(st.sampled_from(["unit", "int", "float"]))
    if kind == "unit":
        w = None
    elif kind == "int":
        w = np.array(draw(st.lists(st.integers(1, 10**6), min_size=n, max_size=n)),
                     dtype=np.int64)
    else:
        w = np.array(draw(st.lists(st.floats(1e-3, 1e3), min_size=n, max_size=n)))
    return s, pos, w


@settings(max_examples=400, deadline=None)
@given(rows())
def test_every_row_against_the_quadratic_definition(case):
    s, pos, w = case
    vals, w1, w0 = row_placements(s, pos, np.argsort(s), w)
    want = _oracle(s, pos, w)
    if w is None or w.dtype.kind == "i":
        assert vals.dtype == np.int64 and vals.tolist() == want.tolist()
        ones = np.ones(s.size, dtype=np.int64) if w is None else w
        assert (w1, w0) == (int(ones[pos].sum()), int(ones[~pos].sum()))
        assert type(w1) is int and type(w0) is int
    else:
        ref, r1, r0 = _cumsum_reference(s, pos, w)
        assert vals.dtype == np.float64 and vals.tobytes() == ref.tobytes()   # bit for bit
        assert (w1, w0) == (r1, r0) and type(w1) is float
        np.testing.assert_allclose(vals, want, rtol=1e-12, atol=1e-9 * w.sum())


@settings(max_examples=100, deadline=None)
@given(rows(), st.randoms(use_true_random=False))
def test_any_argsort_of_the_ties_gives_the_same_placements(case, rnd):
    """The order of tied rows inside a run does not matter (stable or not)."""
    s, pos, w = case
    order = np.argsort(s, kind="stable")
    starts = np.flatnonzero(np.concatenate(([True], s[order][1:] != s[order][:-1])))
    shuffled = np.concatenate([rnd.sample(list(run), len(run))
                               for run in np.split(order, starts[1:])])
    a = row_placements(s, pos, order, w)
    b = row_placements(s, pos, shuffled, w)
    if w is None or w.dtype.kind == "i":
        assert a[0].tolist() == b[0].tolist() and a[1:] == b[1:]
    else:   # the running sums add a run's weights in another order: equal to rounding
        np.testing.assert_allclose(a[0], b[0], rtol=1e-12)


def test_delong_row_placements_splits_the_classes_in_input_order():
    s = np.array([0.9, 0.1, 0.5, 0.5, 0.3])
    pos = np.array([True, False, True, False, False])
    p, q, w1, w0 = delong.row_placements(s, pos, None)
    want = _oracle(s, pos, None)
    assert p.tolist() == want[pos].tolist() and q.tolist() == want[~pos].tolist()
    assert (w1, w0) == (2, 3)


def test_lengths_must_agree():
    s = np.array([0.1, 0.2])
    with pytest.raises(ValueError, match="one length"):
        row_placements(s, np.array([True]), np.argsort(s))


def test_doctests_of_the_compiled_module():
    import doctest

    from streamrank.batch import _cplacements

    result = doctest.testmod(_cplacements, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 3 and result.failed == 0
