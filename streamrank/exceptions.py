"""Warnings and errors raised by streamrank."""

__all__ = ["SnapshotError", "UndefinedMetricWarning"]


class UndefinedMetricWarning(UserWarning):
    """A metric's denominator is zero (one class only, all scores tied, fewer than 2 samples).

    The batch functions then return ``nan`` and emit this warning, as scikit-learn does.
    Silence it with ``warnings.simplefilter("ignore", UndefinedMetricWarning)``.
    """


class SnapshotError(ValueError):
    """``from_bytes`` (`PairCounter.from_bytes`, `streamrank.monitor.Monitor.from_bytes`)
    cannot load the bytes it was given.

    It is the only error ``from_bytes`` raises for bytes it cannot load (besides
    `TypeError` for an argument that is not bytes at all). The message says why:

    * ``"not a streamrank snapshot"``: not an npz archive (empty or random bytes), an
      archive without a streamrank format name, or another structure's snapshot (``"not a
      PairCounter snapshot (got a 'streamrank.Monitor' snapshot)"``);
    * ``"corrupt snapshot: ..."``: a truncated or damaged archive, a missing array, an
      array of the wrong dtype or shape, pickled Python objects (never loaded), values
      that break the structure's rules (nan scores, duplicate keys, bad settings);
    * ``"snapshot version N not supported (this streamrank reads versions 1..M)"``: a
      snapshot from a newer streamrank, or a version that never existed.

    ``pickle.load`` of a River metric of `streamrank.metrics` raises it too, for a state
    it cannot load: ``"ROCAUC: cannot load this pickle: its state is neither this
    version's nor one of streamrank 0.1.0 (...)"``, or ``"ROCAUC: cannot load this pickle
    of streamrank 0.1.0: ..."`` (a damaged one). Pickles of 0.1.0 are read into today's
    layout.

    A subclass of `ValueError`, so ``except ValueError`` catches it too.

    Examples
    --------
    >>> from streamrank import PairCounter, SnapshotError
    >>> try:
    ...     PairCounter.from_bytes(b"not a snapshot")
    ... except SnapshotError as exc:
    ...     print(exc)
    PairCounter.from_bytes: not a streamrank snapshot (14 bytes, not an npz archive).
    """
