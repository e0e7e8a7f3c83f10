"""Versioned numpy snapshots of the keyed structures (`PairCounter.to_bytes`,
`Monitor.to_bytes`): the key encoding, the archive, and the checked reading back.

A snapshot is an ``np.savez`` archive (uncompressed ``.npy`` members, never pickled
objects) with a ``format`` name (``"streamrank.PairCounter"``, ...) and a ``version``.
`load` reads one without trusting it: every failure is a `SnapshotError` ("not a
streamrank snapshot", "corrupt snapshot: ...", "snapshot version N not supported ...").
It parses the archive itself (no ``np.load``): members must be stored uncompressed, each
``.npy`` header is read with numpy's header parser, object dtypes are refused before any
data is read, and the data must have exactly the size the header states, so a damaged
header never allocates more than the snapshot's own size.

Keys (layout version 2) are stored exactly, by type, under a name ``K``:

* ``K_type = "int64"``: ints that all fit int64, as one int64 array ``K``;
* ``K_type = "int"``: ints of any size, each as its little-endian two's complement bytes,
  concatenated in the uint8 array ``K`` with the int64 offsets ``K_offsets`` (``n + 1``);
* ``K_type = "str"``: strings, each UTF-8 encoded (``surrogatepass``: lone surrogates
  too), concatenated the same way. Every ``str`` comes back equal: ``""``, ``"\\x00"``,
  trailing NUL characters (which numpy's ``"U"`` dtype would strip), any code point.

Pickles carry a format version too (`Pickled`): ``__getstate__`` wraps the state in
``{"format", "version", "state"}``, and ``__setstate__`` refuses any other (the pickles of
earlier development formats, which had no version) with the same `SnapshotError` as a
snapshot of an unsupported version, before any state changes.
"""

from __future__ import annotations

import io
import math
import numbers
import struct
import zipfile

import numpy as np

from ._validation import describe, param_error
from .exceptions import SnapshotError

__all__ = ["PICKLE_VERSION", "Pickled", "Snapshot", "dump", "format_of", "key_arrays", "load",
           "owner_state", "owner_state_error", "read_archive", "text_of", "version_error"]

_INT64 = (-(1 << 63), (1 << 63) - 1)
#: What reading a damaged ``.npy`` header (numpy's parser, ``ast.literal_eval``) or a
#: damaged zip member (``zipfile``, ``zlib``) can raise.
#: (RuntimeError: an encrypted member, or a header nested too deep for literal_eval.)
_PARSE_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError,
                 TypeError, OverflowError, SyntaxError, struct.error, NotImplementedError,
                 RuntimeError)


def key_arrays(keys: list, name: str, func: str) -> dict:
    """The arrays that store ``keys`` exactly under ``name`` (see the module docstring);
    `TypeError` naming ``func`` unless the keys are all ints or all strings.

    Runtime complexity: O(total key size).

    >>> a = key_arrays(["", "a\\x00", "\\U0001F642"], "keys", "f")
    >>> str(a["keys_type"]), a["keys_offsets"].tolist(), a["keys"].tobytes()
    ('str', [0, 0, 2, 6], b'a\\x00\\xf0\\x9f\\x99\\x82')
    >>> str(key_arrays([3, -1], "keys", "f")["keys_type"])
    'int64'
    >>> key_arrays([1, "a"], "keys", "f")
    Traceback (most recent call last):
    ...
    TypeError: f needs keys that are all ints or all strings; got keys such as [1, 'a']. Use pickle for other keys.
    """
    kinds = {_key_kind(k) for k in keys}
    if len(kinds) > 1 or None in kinds:
        odd = ([next(k for k in keys if _key_kind(k) is None)] if None in kinds else
               [next(k for k in keys if _key_kind(k) == kind) for kind in ("int", "str")])
        raise TypeError(f"{func} needs keys that are all ints or all strings; got keys such "
                        f"as {describe(odd)}. Use pickle for other keys.")
    if kinds == {"str"}:
        parts = [str.encode(k, "utf-8", "surrogatepass") for k in keys]
        return _packed(name, "str", parts)
    ints = [int(k) for k in keys]
    if not ints or _INT64[0] <= min(ints) and max(ints) <= _INT64[1]:
        return {f"{name}_type": np.array("int64"), name: np.array(ints, dtype=np.int64)}
    parts = [k.to_bytes((k.bit_length() + 8) // 8, "little", signed=True) for k in ints]
    return _packed(name, "int", parts)


def _key_kind(key):
    if isinstance(key, str):
        return "str"
    if isinstance(key, numbers.Integral) and not isinstance(key, (bool, np.bool_)):
        return "int"
    return None


def _packed(name, kind, parts) -> dict:
    offsets = np.zeros(len(parts) + 1, dtype=np.int64)
    np.cumsum([len(p) for p in parts], out=offsets[1:])
    return {f"{name}_type": np.array(kind), f"{name}_offsets": offsets,
            name: np.frombuffer(b"".join(parts), dtype=np.uint8)}


def dump(fmt: str, version: int, **arrays) -> bytes:
    """An ``np.savez`` archive of ``arrays`` with a ``format`` and ``version`` header."""
    buf = io.BytesIO()
    np.savez(buf, format=np.array(fmt), version=np.array(version, dtype=np.int64), **arrays)
    return buf.getvalue()


def load(data, fmt: str, max_version: int, func: str, oldest: int = 1) -> "Snapshot":
    """The checked arrays of a snapshot written by `dump` with format ``fmt`` and a
    version from ``oldest`` to ``max_version``, in a `Snapshot`; `SnapshotError` naming
    ``func`` for anything it cannot load.

    Runtime complexity: O(len(data)).

    >>> load(dump("streamrank.Demo", 1, x=np.arange(3)), "streamrank.Demo", 1,
    ...      "f").array("x", "i").tolist()
    [0, 1, 2]
    >>> load(dump("streamrank.Demo", 2), "streamrank.Demo", 1, "f")
    Traceback (most recent call last):
    ...
    streamrank.exceptions.SnapshotError: f: snapshot version 2 not supported (this streamrank reads version 1).
    >>> load(b"", "streamrank.Demo", 1, "f")
    Traceback (most recent call last):
    ...
    streamrank.exceptions.SnapshotError: f: not a streamrank snapshot (0 bytes, not an npz archive).
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise param_error("data", func, "bytes (a snapshot written by to_bytes)",
                          describe(data), TypeError)
    data = bytes(data)
    if not data.startswith((b"PK\x03\x04", b"PK\x05\x06")):   # a member, an empty archive
        raise SnapshotError(f"{func}: not a streamrank snapshot ({len(data)} bytes, not an "
                            "npz archive).")
    arrays = read_archive(data, lambda what: _corrupt(func, what))
    header = arrays.get("format")
    if not (isinstance(header, np.ndarray) and header.shape == () and
            header.dtype.kind == "U" and str(header).startswith("streamrank.")):
        raise SnapshotError(f"{func}: not a streamrank snapshot (no streamrank format name "
                            "in the archive).")
    if str(header) != fmt:
        raise SnapshotError(f"{func}: not a {fmt.rsplit('.', 1)[-1]} snapshot (got a "
                            f"{describe(str(header))} snapshot).")
    snap = Snapshot(arrays, 0, func)
    snap.array("format", "U", ndim=0)
    version = snap.integer("version")
    if not oldest <= version <= max_version:
        raise version_error(func, "snapshot", version, oldest, max_version)
    snap.version = version
    return snap


def version_error(func: str, what: str, got, oldest: int, newest: int) -> SnapshotError:
    """The one error for a snapshot or pickle of a version this streamrank does not read
    (``got``: the version found, ``None`` for none): it names both.

    >>> print(version_error("f", "pickle", None, 1, 1))
    f: pickle version none not supported (this streamrank reads version 1).
    """
    span = f"version {newest}" if oldest == newest else f"versions {oldest}..{newest}"
    return SnapshotError(f"{func}: {what} version {'none' if got is None else got} not "
                         f"supported (this streamrank reads {span}).")


def owner_state_error(func: str, state) -> SnapshotError:
    """The version error of a compiled owner's pickle (a window, a River metric) whose
    state is not ``(PICKLE_VERSION, ...)``: an earlier development format, without a
    version, or another version.

    >>> print(owner_state_error("f", (0, ())))
    f: pickle version 0 not supported (this streamrank reads version 1).
    >>> print(owner_state_error("f", {"_engine": None}))
    f: pickle version none not supported (this streamrank reads version 1).
    """
    version = state[0] if type(state) is tuple and state and type(state[0]) is int else None
    return version_error(func, "pickle", version, PICKLE_VERSION, PICKLE_VERSION)


def owner_state(func: str, state) -> tuple:
    """The state inside a compiled owner's pickle ``(PICKLE_VERSION, state)`` (what its
    ``__reduce__`` wrote); `owner_state_error` for anything else.

    >>> owner_state("f", (1, ("a",)))
    ('a',)
    """
    if type(state) is not tuple or len(state) != 2 or state[0] != PICKLE_VERSION:
        raise owner_state_error(func, state)
    return state[1]


#: The format version of every pickle of a structure that is `Pickled`.
PICKLE_VERSION = 1


class Pickled:
    """Mixin: pickles of a structure carry its format name (``"streamrank."`` and the
    class name) and `PICKLE_VERSION`, and only those load.

    ``__getstate__`` returns ``{"format": ..., "version": ..., "state": ...}``, the state
    being ``_state()`` (default: the instance's attributes); ``__setstate__`` checks the
    header and hands the state to ``_restore`` (default: the attributes as they were).
    Anything else -- a pickle of an earlier development format (no version), of another
    version, of another structure -- raises `SnapshotError` before any state changes.
    O(1) beyond what pickle itself costs.

    >>> import pickle
    >>> from streamrank.engine import PairEngine
    >>> e = PairEngine(); e.add(1, 0.5); e.add(0, 0.2)
    >>> state = e.__getstate__()
    >>> state["format"], state["version"], pickle.loads(pickle.dumps(e)).counts.auc
    ('streamrank.PairEngine', 1, 1.0)
    >>> PairEngine().__setstate__(state["state"])   # no header: an earlier format
    Traceback (most recent call last):
    ...
    streamrank.exceptions.SnapshotError: PairEngine: pickle version none not supported (this streamrank reads version 1).
    """

    def __getstate__(self) -> dict:
        return {"format": f"streamrank.{type(self).__name__}", "version": PICKLE_VERSION,
                "state": self._state()}

    def __setstate__(self, state) -> None:
        func = type(self).__name__
        if not isinstance(state, dict) or "version" not in state:
            raise version_error(func, "pickle", None, PICKLE_VERSION, PICKLE_VERSION)
        got = state["version"]
        if type(got) is not int or got != PICKLE_VERSION:
            raise version_error(func, "pickle", describe(got), PICKLE_VERSION,
                                PICKLE_VERSION)
        fmt = f"streamrank.{func}"
        if state.get("format") != fmt or not isinstance(state.get("state"), dict):
            raise SnapshotError(f"{func}: not a {func} pickle (got the state of "
                                f"{describe(state.get('format'))}).")
        self._restore(state["state"])

    def _state(self) -> dict:
        return self.__dict__

    def _restore(self, state: dict) -> None:
        self.__dict__.update(state)


def format_of(data) -> str | None:
    """The format name of a snapshot (``"streamrank.Monitor"``, ...), read from its
    ``format`` member alone without pickle; None for bytes that are not a snapshot (the
    full checks are `load`'s). O(the member's size).

    >>> format_of(dump("streamrank.Demo", 1)), format_of(b"not one")
    ('streamrank.Demo', None)
    """
    return text_of(data, "format")


def text_of(data, name: str) -> str | None:
    """The 0-d string member ``name`` of a snapshot, read alone without pickle; None
    when the bytes are not a snapshot or hold no such string. O(the member's size).

    >>> text_of(dump("streamrank.Demo", 1, kind=np.array("A")), "kind")
    'A'
    """
    try:
        with zipfile.ZipFile(io.BytesIO(bytes(data))) as zf:
            arr = _read_npy(zf.read(f"{name}.npy"), name)
    except (_Refused, KeyError, *_PARSE_ERRORS):
        return None
    return str(arr) if arr.dtype.kind == "U" and arr.shape == () else None


class _Refused(Exception):
    """What `read_archive` found wrong (its reason), before ``error`` words it."""


def read_archive(data: bytes, error) -> dict:
    """name -> array of every ``.npy`` member of an ``np.savez`` archive, read without
    pickle and without trusting it (see the module docstring); anything else raises
    ``error(what)`` (a function of the reason, returning the exception). O(len(data)).

    >>> read_archive(dump("streamrank.Demo", 1, x=np.arange(2)), ValueError)["x"].tolist()
    [0, 1]
    >>> read_archive(b"PK\\x03\\x04 half", ValueError)
    Traceback (most recent call last):
    ...
    ValueError: BadZipFile: File is not a zip file
    """
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            infos = zf.infolist()
            names = [info.filename for info in infos]
            if len(set(names)) != len(names):
                raise _Refused("an archive member is stored twice")
            arrays = {}
            for info in infos:
                if not info.filename.endswith(".npy"):
                    raise _Refused(f"unexpected member {describe(info.filename)}")
                if info.compress_type != zipfile.ZIP_STORED or info.file_size > len(data):
                    raise _Refused(f"member {describe(info.filename)} is compressed or "
                                   "larger than the archive (streamrank stores members "
                                   "uncompressed)")
                name = info.filename[:-4]
                arrays[name] = _read_npy(zf.read(info), name)
    except _Refused as exc:
        raise error(str(exc)) from None
    except _PARSE_ERRORS as exc:
        raise error(f"{type(exc).__name__}: {exc}") from exc
    return arrays


def _read_npy(raw: bytes, name: str) -> np.ndarray:
    """One ``.npy`` member, without pickled objects and without trusting its header."""
    fp = io.BytesIO(raw)
    version = np.lib.format.read_magic(fp)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(fp)
    elif version == (2, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(fp)
    else:
        raise _Refused(f"array {name!r} has .npy version {version}")
    if dtype.hasobject:
        raise _Refused(f"array {name!r} holds pickled Python objects, which streamrank "
                       "never loads")
    if dtype.kind not in "biufU" or dtype.fields is not None or dtype.subdtype is not None \
            or dtype.itemsize == 0 or any(d < 0 for d in shape):
        raise _Refused(f"array {name!r} has dtype {dtype} and shape {shape}")
    count = math.prod(shape)
    body = raw[fp.tell():]
    if len(body) != count * dtype.itemsize:
        raise _Refused(f"array {name!r} has {len(body)} bytes of data for shape {shape} "
                       f"and dtype {dtype}")
    arr = np.frombuffer(body, dtype=dtype, count=count).copy()
    if fortran:
        return arr.reshape(shape[::-1]).transpose()
    return arr.reshape(shape)


def _corrupt(func: str, what: str) -> SnapshotError:
    return SnapshotError(f"{func}: corrupt snapshot: {what}.")


class Snapshot:
    """The arrays of a loaded snapshot, read through checks: each accessor raises
    `SnapshotError` ("corrupt snapshot: ...") for a missing array or the wrong dtype or
    shape, and `finish` for an array that nothing read."""

    def __init__(self, arrays: dict, version: int, func: str, prefix: str = "",
                 unread: set | None = None):
        self._arrays = arrays
        self._unread = set(arrays) if unread is None else unread     # (shared by sections)
        self.version = version
        self.func = func
        self.prefix = prefix

    def section(self, name: str) -> "Snapshot":
        """The arrays under ``name + "/"`` (a part of a composite snapshot: a writer
        stored them as ``name/x`` ...), read through the same checks; its arrays count
        for `finish`.

        >>> snap = Snapshot({"a/x": np.arange(2)}, 1, "f")
        >>> part = snap.section("a")
        >>> part.array("x", "i").tolist(), part.has("y"), snap.has("a/x")
        ([0, 1], False, True)
        >>> part.array("y", "i")
        Traceback (most recent call last):
        ...
        streamrank.exceptions.SnapshotError: f: corrupt snapshot: array 'a/y' is missing.
        """
        return Snapshot(self._arrays, self.version, self.func, f"{self.prefix}{name}/",
                        self._unread)

    def has(self, name: str) -> bool:
        """Whether array ``name`` is stored (in this section)."""
        return self.prefix + name in self._arrays

    def corrupt(self, what: str) -> SnapshotError:
        """A `SnapshotError` "corrupt snapshot: ``what``" (with the section, in one)."""
        where = f" (in '{self.prefix[:-1]}')" if self.prefix else ""
        return _corrupt(self.func, what + where)

    def array(self, name: str, kind: str, *, ndim: int = 1, size: int | None = None,
              itemsize: int | None = None) -> np.ndarray:
        """Array ``name`` with a dtype of kind ``kind`` (one of ``"biufU"``, or several),
        ``ndim`` dimensions and, when given, ``size`` elements of ``itemsize`` bytes.
        Float arrays (kind ``"f"``) are float64."""
        name = self.prefix + name
        arr = self._arrays.get(name)
        if arr is None:
            raise _corrupt(self.func, f"array {name!r} is missing")
        self._unread.discard(name)
        if kind == "f":
            itemsize = 8
        if (arr.dtype.kind not in kind or arr.ndim != ndim or
                (itemsize is not None and arr.dtype.itemsize != itemsize) or
                (size is not None and arr.size != size)):
            want = f"{ndim}-d {kind!r} array" + ("" if size is None else f" of size {size}")
            raise _corrupt(self.func, f"array {name!r} should be a {want}; it has dtype "
                                      f"{arr.dtype} and shape {arr.shape}")
        return arr.astype(arr.dtype.newbyteorder("="), copy=False)

    def text(self, name: str) -> str:
        """The 0-d string array ``name``."""
        return str(self.array(name, "U", ndim=0))

    def integer(self, name: str) -> int:
        """The 0-d int array ``name``."""
        return int(self.array(name, "iu", ndim=0))

    def flag(self, name: str) -> bool:
        """The 0-d bool array ``name``."""
        return bool(self.array(name, "b", ndim=0))

    def floats(self, name: str, size: int | None = None, *, finite: bool = True,
               nonnegative: bool = False) -> np.ndarray:
        """The 1-d float64 array ``name``, checked finite (and ``>= 0``)."""
        arr = self.array(name, "f", size=size)
        if finite and not np.isfinite(arr).all():
            raise self.corrupt(f"array {name!r} holds nan or inf")
        if nonnegative and (arr < 0).any():
            raise self.corrupt(f"array {name!r} holds negative values")
        return arr

    def keys(self, name: str) -> list:
        """The keys stored under ``name`` by `key_arrays`, as Python ints or strings."""
        kind = self.text(f"{name}_type")
        if kind == "int64":
            return self.array(name, "i", itemsize=8).tolist()
        if kind not in ("int", "str"):
            raise self.corrupt(f"unknown key type {describe(kind)}")
        buf = self.array(name, "u", itemsize=1).tobytes()
        off = self.array(f"{name}_offsets", "i", itemsize=8)
        if not (off.size and off[0] == 0 and off[-1] == len(buf)
                and (np.diff(off) >= 0).all()):
            raise self.corrupt(f"array '{name}_offsets' does not split the {len(buf)} key "
                               "bytes")
        bounds = off.tolist()
        parts = [buf[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
        if kind == "int":
            return [int.from_bytes(p, "little", signed=True) for p in parts]
        try:
            return [p.decode("utf-8", "surrogatepass") for p in parts]
        except UnicodeDecodeError as exc:
            raise self.corrupt(f"a key is not UTF-8 ({exc})") from None

    def json(self, name: str):
        """The JSON text of the 0-d string array ``name``, parsed."""
        import json

        try:
            return json.loads(self.text(name))
        except (ValueError, RecursionError) as exc:
            raise self.corrupt(f"array {name!r} is not JSON ({exc})") from None

    def finish(self) -> None:
        """Raise if an array was never read (not part of this format and version)."""
        if self._unread:
            raise self.corrupt(f"unexpected arrays {sorted(self._unread)}")

    def rebuild(self):
        """A context manager: a `ValueError`, `TypeError` or `KeyError` raised while the
        object is rebuilt from checked arrays (a bad setting, a duplicate key, a third
        label with ``labels="binary"``) becomes a `SnapshotError`."""
        return _Rebuild(self)


class _Rebuild:
    def __init__(self, snap):
        self.snap = snap

    def __enter__(self):
        return self.snap

    def __exit__(self, cls, exc, tb):
        if cls is None or issubclass(cls, SnapshotError) or not issubclass(
                cls, (ValueError, TypeError, KeyError)):
            return False
        raise self.snap.corrupt(str(exc).rstrip(".")) from exc
