"""The events of a release fixture's spec (``tests/data/release*/samples.json``) and the
metric they should give, recounted by the references of `_metric_refs`: shared by
`tests/api/test_release_fixtures.py` and `tests/metrics/test_legacy_pickles.py` (a test
module importing another test module works only when pytest happened to put that one's
folder on ``sys.path`` first)."""

from __future__ import annotations

from _metric_refs import auc_ref, cindex_ref, gauc_ref, pair_ref

__all__ = ["event_args", "held_events", "json_key", "reference_of", "reference_value"]


def json_key(k):
    """A key as stored in JSON back to Python (lists were tuples)."""
    return tuple(json_key(x) for x in k) if isinstance(k, list) else k


def event_args(event):
    y, p, w = event
    return json_key(y), json_key(p), w


def reference_of(spec):
    """The metric of these ``(y_true, y_pred, w)`` events, recounted from scratch."""
    name, params = spec["class"], spec["params"]
    if name in ("ROCAUC", "RollingROCAUC"):
        return auc_ref
    if name == "GroupAUC":
        return gauc_ref(params.get("weighting", "impressions"))
    if name == "ConcordanceIndex":
        return cindex_ref
    prop = {"KendallTau": "tau_" + params.get("variant", "b"),
            "GoodmanKruskalGamma": "gamma", "SomersD": "somers_d",
            "PairwiseAccuracy": "pairwise_accuracy",
            "RightWrongRatio": "right_wrong_ratio"}[name]
    return pair_ref(prop)


def held_events(spec, extra=()):
    """The events a metric holds after its operations (a multiset: ``revert`` removes
    one equal update; `RollingROCAUC` holds the last ``window_size``)."""
    held = []
    for op in spec["ops"]:
        if op[0] == "update":
            held.append(event_args(op[1]))
        elif op[0] == "revert":
            held.remove(event_args(op[1]))
    held += list(extra)
    if spec["class"] == "RollingROCAUC":
        held = held[-spec["params"]["window_size"]:]
    return held


def reference_value(spec, held):
    ref = reference_of(spec)
    return ref([e[0] for e in held], [e[1] for e in held], [e[2] for e in held])
