"""Warnings and errors raised by streamrank."""

__all__ = ["MissingExtraError", "SnapshotError", "UndefinedMetricWarning"]


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
    * ``"snapshot version N not supported (this streamrank reads version M)"``: a
      snapshot of an earlier development format, from a newer streamrank, or of a version
      that never existed.

    ``pickle.load`` of a structure that carries a pickle format version (the River
    metrics, `EpochTracker`, `PairEngine`, the ranking states: see
    `streamrank._snapshot.Pickled`) raises it too, before any state changes, for a pickle
    of another version: ``"ROCAUC: pickle version none not supported (this streamrank
    reads version 1)."`` (``none``: a pickle of an earlier development format, which had
    no version).

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


class MissingExtraError(ImportError):
    """An optional dependency is not installed; the message names the extra that brings
    it, as in ``pip install "streamrank[river]"`` (see the installation guide)."""
