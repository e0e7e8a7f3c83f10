"""The one format detector of the readers: the format of an input from its name, else
from its first bytes.

Both `streamrank.io.tables.read_columns` (``streamrank eval``, ``epochs``) and
`streamrank.io.events.EventSource` (``streamrank monitor``) call `detect_format`, so a
file reads as the same format in every command.
"""

from __future__ import annotations

import gzip
import os
import zlib

__all__ = ["EXTENSIONS", "FORMATS", "detect_format", "folder_formats", "format_from_name",
           "sniff"]

#: The formats of the readers (``format=`` / ``--input-format`` values).
FORMATS = ("csv", "tsv", "parquet", "jsonl")

#: File name endings and their formats (a ``.gz`` suffix aside).
EXTENSIONS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".jsonl": "jsonl",
              ".ndjson": "jsonl", ".json": "jsonl", ".parquet": "parquet",
              ".pq": "parquet"}

#: Other names a ``format=`` may give.
ALIASES = {"json": "jsonl", "ndjson": "jsonl", "pq": "parquet", "tab": "tsv"}

# Bytes read to sniff a file whose name says nothing.
_SNIFF = 1 << 16

#: A directory's listing skips the names starting with these, files and folders, as
#: pyarrow's datasets do: hidden files and the markers of writers (``_SUCCESS``,
#: ``.part-0.csv.crc``, ``_temporary/``).
SKIPPED_PREFIXES = (".", "_")

_OTHER_COMPRESSION = ((b"BZh", "bzip2"), (b"\xfd7zXZ\x00", "xz"),
                      (b"\x28\xb5\x2f\xfd", "zstd"), (b"PK\x03\x04", "zip"),
                      (b"\x04\x22\x4d\x18", "lz4"))


def sniff(head: bytes) -> str | None:
    """What the first bytes of an input say it is: ``gzip``, ``parquet``, another
    compression (``bzip2``, ``xz``, ``zstd``, ``zip``, ``lz4``), ``utf-16``, or None
    (text, or too few bytes to tell).

    >>> sniff(b"\\x1f\\x8b\\x08"), sniff(b"PAR1..."), sniff(b"id,score")
    ('gzip', 'parquet', None)
    """
    if head[:2] == b"\x1f\x8b":
        return "gzip"
    if head[:4] == b"PAR1":
        return "parquet"
    if head[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return "utf-16"
    for magic, kind in _OTHER_COMPRESSION:
        if head.startswith(magic) and (kind != "bzip2" or head[4:10] == b"1AY&SY"):
            return kind
    return None


def _text_format(text: bytes) -> str:
    """``jsonl``, ``tsv`` or ``csv`` from the first line of a text."""
    first = text.lstrip(b"\xef\xbb\xbf \t\r\n").split(b"\n", 1)[0]
    if first.startswith(b"{"):
        return "jsonl"
    if b"\t" in first and b"," not in first:
        return "tsv"
    return "csv"


def _file_head(path) -> bytes:
    """The first bytes of a regular file (decompressed when gzip), b"" when unreadable."""
    try:
        with open(path, "rb") as f:
            head = f.read(_SNIFF)
        if sniff(head) == "gzip":
            with gzip.open(path, "rb") as f:
                head = f.read(_SNIFF)
    except (OSError, EOFError, zlib.error):
        return b""
    return head


def format_from_name(path) -> str | None:
    """The format a file name says (`EXTENSIONS`, a ``.gz`` suffix aside), or None.

    >>> format_from_name("a.TSV.gz"), format_from_name("log.txt")
    ('tsv', None)
    """
    base = os.fspath(path).rstrip("/\\")
    if base.lower().endswith(".gz"):
        base = base[:-3]
    return EXTENSIONS.get(os.path.splitext(base)[1].lower())


def detect_format(path, format=None, head: bytes | None = None) -> str:
    """The format of ``path``: ``format`` if given, else from the name, else sniffed.

    The name decides first (a ``.gz`` suffix aside): ``.csv``; ``.tsv`` and ``.tab``
    (tab-separated); ``.jsonl``, ``.ndjson``, ``.json`` (JSON lines); ``.parquet``,
    ``.pq``, or a directory (of Parquet files, Hive partitions included). Any other name
    is sniffed from ``head`` (the input's first bytes, decompressed; read from the file
    when None and ``path`` is a file): Parquet by its magic bytes, JSON lines when the
    first line starts with ``{``, TSV when it holds tabs and no comma, else CSV (also
    standard input, ``-``, without ``head``). ``O(1)`` (at most 64 KiB read).

    Parameters
    ----------
    path : str or os.PathLike
        The input's name (``"-"``: standard input).
    format : str, optional
        One of `FORMATS`, or ``"json"`` / ``"ndjson"`` (JSON lines), ``"pq"``, ``"tab"``;
        None or ``"auto"``: detect.
    head : bytes, optional
        The first bytes of the input (for a stream that cannot be read twice).

    Raises
    ------
    ValueError
        ``format`` is not a known format.

    >>> detect_format("scores.csv.gz"), detect_format("part.pq"), detect_format("-")
    ('csv', 'parquet', 'csv')
    >>> detect_format("events.ndjson"), detect_format("x.tab"), detect_format("x.txt", "tsv")
    ('jsonl', 'tsv', 'tsv')
    >>> detect_format("log", head=b'{"id": 1}'), detect_format("log", head=b"id\\tscore\\n")
    ('jsonl', 'tsv')
    """
    if format is not None and format != "auto":
        fmt = ALIASES.get(format, format)
        if fmt not in FORMATS:
            raise ValueError(f"The 'format' parameter of detect_format must be one of "
                             f"{FORMATS}. Got {format!r} instead.")
        return fmt
    name = os.fspath(path)
    fmt = format_from_name(name)
    if fmt is not None:
        return fmt
    if name != "-" and os.path.isdir(name):
        return "parquet"
    if head is None:
        head = _file_head(name) if name != "-" and os.path.isfile(name) else b""
    if sniff(head) == "parquet":
        return "parquet"
    return _text_format(head)


def folder_formats(path, format=None) -> dict:
    """The data files under the directory ``path`` by format, ``{format: [files]}``, in
    name order (subdirectories walked in name order: Hive partitions ``key=value/`` too),
    names starting with `SKIPPED_PREFIXES` left out. A file's format is the one its name
    says (`format_from_name`), else ``format`` when given, else sniffed from its first
    bytes (`detect_format`). ``O(files)``, at most 64 KiB read per file whose name says
    nothing.

    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> for f in ("b.csv", "a.csv", "_SUCCESS", "x.parquet"):
    ...     open(os.path.join(d, f), "w").close()
    >>> {k: [os.path.basename(f) for f in v] for k, v in folder_formats(d).items()}
    {'csv': ['a.csv', 'b.csv'], 'parquet': ['x.parquet']}
    """
    out: dict = {}
    for root, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith(SKIPPED_PREFIXES))
        for f in sorted(files):
            if f.startswith(SKIPPED_PREFIXES):
                continue
            full = os.path.join(root, f)
            fmt = format_from_name(f) or detect_format(full, format)
            out.setdefault(fmt, []).append(full)
    return out
