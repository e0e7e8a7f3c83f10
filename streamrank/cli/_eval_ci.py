"""``streamrank eval`` on binary labels: the interval of the AUC, the paired test, curves.

The options (`ci_options`) and what they do, once the summary record is computed:

* ``--ci``: `streamrank.roc_auc_ci` (``--level``, ``--ci-method``; the bootstrap draws
  ``--resamples`` resamples from the generator ``--random-state``, 1000 and 0 by default, so
  that a run repeats its interval) adds ``auc_low``, ``auc_high``, ``auc_se``,
  ``ci_method``, ``ci_level`` after ``auc``;
* ``--compare-score COL``: `streamrank.delong_test` of ``--score`` against ``COL`` on
  the same rows (``--alternative``, ``--level``) adds ``compare_score``, ``auc_b``,
  ``difference``, ``difference_se``, ``difference_low``, ``difference_high``,
  ``difference_level``, ``alternative``, ``z``, ``p_value``;
* ``--curve roc|pr``: the points of `streamrank.roc_curve` (``fpr, tpr, threshold``) or
  `streamrank.precision_recall_curve` (``precision, recall, threshold``) are printed
  instead of the summary; with ``--plot FILE`` the figure (`streamrank.plot.plot_curve`)
  is written instead and the summary printed. The first ROC point (0, 0) and the last PR
  point (recall 0) have no threshold: empty in CSV, ``null`` in JSON;
* ``--fail-below X``: exit code 1, after the output, when the AUC (with ``--ci``: its
  lower bound) is below ``X`` or undefined, with the reason on stderr.

They need binary labels (not ``--time``, ``--query`` or ``--dask``): other labels are a
usage error (exit 2) naming the option.
"""

from __future__ import annotations

import math

import click

from ..batch.delong import METHODS
from ..intervals import ALTERNATIVES
from ._common import EXIT_ALERT, check_output_folder, format_records

__all__ = ["apply_ci", "check_ci_options", "ci_options", "gate", "print_curve"]

#: The options of binary labels, in the order a message names them.
_BINARY_ONLY = (("ci", "--ci"), ("compare_score", "--compare-score"),
                ("curve", "--curve"), ("fail_below", "--fail-below"))

_OPTIONS = [
    click.option("--ci", is_flag=True, default=False,
                 help="Add the confidence interval of the AUC (binary labels): auc_low, "
                      "auc_high, auc_se."),
    click.option("--level", type=click.FloatRange(0, 1, min_open=True, max_open=True),
                 default=None, help="Confidence level of --ci and of the interval of the "
                                    "--compare-score difference [default: 0.95]."),
    click.option("--ci-method", type=click.Choice(METHODS), default=None,
                 help="--ci: DeLong's variance, Hanley-McNeil's formula, or the BCa "
                      "bootstrap [default: delong]."),
    click.option("--resamples", type=click.IntRange(2), default=None,
                 help="Bootstrap resamples of --ci-method bootstrap [default: 1000]."),
    click.option("--random-state", type=click.IntRange(0), default=None,
                 help="The bootstrap's random generator (an integer: the same one gives "
                      "the same interval) [default: 0]."),
    click.option("--compare-score", metavar="COL",
                 help="DeLong's paired test of --score against this score column on the "
                      "same rows: both AUCs, the difference, its interval, z, p-value."),
    click.option("--alternative", type=click.Choice(ALTERNATIVES), default=None,
                 help="--compare-score: the alternative hypothesis ('greater': --score "
                      "has the higher AUC) [default: two-sided]."),
    click.option("--curve", type=click.Choice(["roc", "pr"]), default=None,
                 help="Print the ROC (fpr, tpr, threshold) or precision-recall "
                      "(precision, recall, threshold) curve's points instead of the "
                      "summary; with --plot, draw it."),
    click.option("--plot", "plot_path", metavar="FILE.png",
                 type=click.Path(dir_okay=False, writable=True),
                 help="--curve: write the curve's figure (PNG) and print the summary."),
    click.option("--fail-below", type=click.FloatRange(0, 1), default=None, metavar="X",
                 help="Exit with code 1 (after the output) when the AUC, or with --ci its "
                      "lower bound, is below X or undefined: a release gate."),
]


def ci_options(command):
    """Add the options of this module to a click command (as keyword arguments)."""
    for option in reversed(_OPTIONS):
        command = option(command)
    return command


def check_ci_options(ci: dict, o: dict, dask) -> None:
    """Usage errors (exit 2) of the options, before any file is read."""
    usage = click.UsageError
    given = [opt for key, opt in _BINARY_ONLY if ci[key] not in (None, False)]
    for key, what in (("time", "--time (censored C-index)"),
                      ("query", "--query (ranking metrics)")):
        if given and o[key] is not None:
            raise usage(f"{given[0]} needs binary labels: it cannot be used with {what}.")
    if given and dask is not None:
        raise usage(f"{given[0]} cannot be used with --dask.")
    if ci["ci"] and o["group"] is not None:
        raise usage("--ci is the interval of the AUC of all rows; it is not defined for "
                    "the group AUC: drop --group (or --ci).")
    if ci["level"] is not None and not (ci["ci"] or ci["compare_score"]):
        raise usage("--level is the level of --ci or of --compare-score: give one.")
    if ci["ci_method"] is not None and not ci["ci"]:
        raise usage("--ci-method needs --ci.")
    for key in ("resamples", "random_state"):
        if ci[key] is not None and ci["ci_method"] != "bootstrap":
            raise usage(f"--{key.replace('_', '-')} is for --ci --ci-method bootstrap.")
    if ci["alternative"] is not None and ci["compare_score"] is None:
        raise usage("--alternative needs --compare-score.")
    if ci["plot_path"] is not None:
        if ci["curve"] is None:
            raise usage("--plot draws the curve of --curve roc|pr: give --curve.")
        check_output_folder(ci["plot_path"], "--plot")


def _binary_only(rec: dict, ci: dict, label) -> None:
    if rec["label_kind"] == "binary":
        return
    opt = next(opt for key, opt in _BINARY_ONLY if ci[key] not in (None, False))
    raise click.UsageError(
        f"{opt} needs binary labels; column {label!r} has {rec['label_levels']} distinct "
        "values: pick the positive one with --pos-label.")


def apply_ci(rec: dict, ci: dict, label, arrays):
    """Add the interval and the paired test to ``rec``; return ``(rec, points,
    interval)``: the curve's points (a list of records) when they replace the summary,
    else ``None``, and the `streamrank.AUCInterval` of ``--ci`` (or ``None``).

    ``arrays()`` gives ``(pos, s, w, s_b)``: the positives (bool), the scores, the
    weights (or None) and the scores of ``--compare-score`` (or None), as read.
    """
    if not any(ci[key] not in (None, False) for key, _ in _BINARY_ONLY):
        return rec, None, None
    _binary_only(rec, ci, label)
    import streamrank as sr

    pos, s, w, s_b = arrays()
    level = 0.95 if ci["level"] is None else ci["level"]
    interval = None
    if ci["ci"]:
        method = ci["ci_method"] or "delong"
        kw = {}
        if method == "bootstrap":
            kw = dict(n_resamples=1000 if ci["resamples"] is None else ci["resamples"],
                      random_state=0 if ci["random_state"] is None else ci["random_state"])
        interval = sr.roc_auc_ci(pos, s, sample_weight=w, level=level, method=method, **kw)
        out = {}
        for key, value in rec.items():
            out[key] = value
            if key == "auc":
                out.update(auc_low=interval.low, auc_high=interval.high,
                           auc_se=interval.se, ci_method=interval.method,
                           ci_level=interval.level)
        rec = out
    if ci["compare_score"] is not None:
        t = sr.delong_test(pos, s, s_b, sample_weight=w, level=level,
                           alternative=ci["alternative"] or "two-sided")
        rec.update(compare_score=ci["compare_score"], auc_b=t.auc_b,
                   difference=t.difference, difference_se=t.se, difference_low=t.low,
                   difference_high=t.high, difference_level=t.level,
                   alternative=t.alternative, z=t.z, p_value=t.p_value)
    if ci["curve"] is None:
        return rec, None, interval
    if ci["curve"] == "roc":
        fpr, tpr, thr = sr.roc_curve(pos, s, sample_weight=w)
        points = [{"fpr": a, "tpr": b, "threshold": None if math.isinf(t) else t}
                  for a, b, t in zip(fpr.tolist(), tpr.tolist(), thr.tolist())]
        x, y, area = fpr, tpr, rec["auc"]
    else:
        prec, rec_, thr = sr.precision_recall_curve(pos, s, sample_weight=w)
        thr = thr.tolist() + [None]
        points = [{"precision": a, "recall": b, "threshold": t}
                  for a, b, t in zip(prec.tolist(), rec_.tolist(), thr)]
        x, y = rec_, prec
        area = sr.average_precision_score(pos, s, sample_weight=w)
    if ci["plot_path"] is None:
        return rec, points, interval
    from ..plot import plot_curve

    plot_curve(ci["curve"], x, y, ci["plot_path"], area=area,
               interval=interval if ci["curve"] == "roc" else None)
    click.echo(f"wrote {ci['plot_path']}", err=True)
    return rec, None, interval


def print_curve(points, fmt: str) -> None:
    """The curve's points, one record each, in the output format."""
    click.echo(format_records(points, fmt))


def gate(rec: dict, ci: dict, interval) -> None:
    """``--fail-below``: exit 1, with the reason on stderr, when the AUC (or with --ci its
    lower bound) is below the bound or undefined; nothing otherwise."""
    bound = ci["fail_below"]
    if bound is None:
        return
    value, what = rec["auc"], "the AUC"
    if interval is not None:
        value = interval.low
        what = f"the lower bound of the {100 * interval.level:g}% interval of the AUC"
    if isinstance(value, float) and math.isnan(value):
        click.echo(f"fail: {what} is undefined (nan), below --fail-below {bound:g}",
                   err=True)
        raise click.exceptions.Exit(EXIT_ALERT)
    if value < bound:
        click.echo(f"fail: {what} is {value:.6g}, below --fail-below {bound:g}", err=True)
        raise click.exceptions.Exit(EXIT_ALERT)
