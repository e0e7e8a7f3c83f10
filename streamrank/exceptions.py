"""Warnings and errors raised by streamrank."""

__all__ = ["UndefinedMetricWarning"]


class UndefinedMetricWarning(UserWarning):
    """A metric's denominator is zero (one class only, all scores tied, fewer than 2 samples).

    The batch functions then return ``nan`` and emit this warning, as scikit-learn does.
    Silence it with ``warnings.simplefilter("ignore", UndefinedMetricWarning)``.
    """
