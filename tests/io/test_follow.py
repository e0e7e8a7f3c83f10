"""`EventSource(follow=True)` across log rotation, as ``tail -F`` follows a file.

A writer and the follower run in one thread, deterministically: each time the follower
polls at the end of the data (its ``sleep``), the writer takes its next step: appends
(a line may be split across two steps), ``copytruncate`` (the file emptied, then written
again, shorter or longer than what was read, with or without a header), rename and create
(logrotate's default; rows still appended to the renamed file first; the path may be
missing for a poll), or a republish (the whole file written anew with more rows and
renamed over the path). The oracle is the writer's own list of the rows it wrote: the
follower must read each exactly once, in order, numbered 1, 2, ..., and say what
happened at every rotation it could see.
"""

import json
import os
import tempfile

import pytest
from _rotation import copytruncate, polls, rename_and_create
from hypothesis import given, strategies as st

from streamrank.io.events import EventError, EventSource, Position


class Writer:
    """A producer of rows ``(id, score)`` at ``folder/live.FMT``, one step at a time."""

    def __init__(self, folder, fmt):
        self.fmt = fmt
        self.path = os.path.join(folder, f"live.{fmt}")
        self.rows = []              # every row written, in order: the oracle
        self.notes = {"truncated": 0, "replaced": 0, "inaccessible": 0, "continues": 0}
        self.fh = open(self.path, "ab")
        self.fragment = b""         # the rest of a line written in half
        self.write(self.header())

    def line(self) -> bytes:
        n = len(self.rows) + 1
        row = (f"u{n}", (n * 37 % 101) / 101)
        self.rows.append(row)
        if self.fmt == "csv":
            return f"{row[0]},{row[1]}\n".encode()
        return (json.dumps({"id": row[0], "score": row[1]}) + "\n").encode()

    def header(self) -> bytes:
        return b"id,score\n" if self.fmt == "csv" else b""

    def write(self, data: bytes) -> None:
        self.fh.write(data)
        self.fh.flush()

    # the steps: each returns the closures the follower runs, one per poll
    def append(self, k, split):
        def step():
            data = self.fragment + b"".join(self.line() for _ in range(k))
            self.fragment = b""
            if split:
                half = self.line()
                cut = len(half) // 2
                data, self.fragment = data + half[:cut], half[cut:]
            self.write(data)
        return [step]

    def _whole(self):
        """A step that completes a half-written line, if there is one then: a producer
        finishes its line before its file is rotated."""
        return self.append(0, False)

    def truncate(self, k, header):
        def step():
            with open(self.path, "rb") as f:
                old = f.read()
            os.truncate(self.path, 0)        # copytruncate; the writer's file is O_APPEND
            new = (self.header() if header else b"") + b"".join(
                self.line() for _ in range(k))
            self.write(new)
            if not new.startswith(old):      # (else the same content, grown: no change)
                self.notes["truncated"] += 1
        return self._whole() + [step]

    def rename(self, k_old, k_new, header, gap, number=[0]):  # noqa: B006 (a counter)
        def move():
            number[0] += 1
            os.rename(self.path, f"{self.path}.{number[0]}")
            self.write(b"".join(self.line() for _ in range(k_old)))   # still appended to
            if gap:
                self.notes["inaccessible"] += 1

        def create():
            with open(f"{self.path}.{number[0]}", "rb") as f:
                old = f.read()
            self.fh.close()
            self.fh = open(self.path, "ab")
            new = (self.header() if header else b"") + b"".join(
                self.line() for _ in range(k_new))
            self.write(new)
            # a new file that starts with all the old one held (the same header, no
            # rows) continues it
            self.notes["continues" if old and new.startswith(old) else "replaced"] += 1
        return self._whole() + ([move, create] if gap else [lambda: (move(), create())])

    def republish(self, k):
        def step():
            with open(self.path, "rb") as f:
                data = f.read()
            tmp = self.path + ".tmp"
            with open(tmp, "wb") as f:
                f.write(data + b"".join(self.line() for _ in range(k)))
            os.replace(tmp, self.path)
            self.fh.close()
            self.fh = open(self.path, "ab")
            self.notes["continues" if data else "replaced"] += 1
        return self._whole() + [step]


def follow(path, steps, fmt, **kwargs):
    """Follow ``path``, running one of ``steps`` at each poll; stop when they are done.
    Returns the rows as ``(row, id, score)``, the messages, and the source."""
    notes = []
    with polls(steps):
        src = EventSource(path, follow=True, poll=0, max_idle=1, on_rotate=notes.append,
                          **kwargs)
        got = [(row, *((rec[0], float(rec[1])) if fmt == "csv" else
                       (rec["id"], rec["score"])))
               for row, rec in src]
    src.close()
    return got, notes, src


#: The words of each kind of message.
SAID = {"truncated": ": file ", "replaced": "has been replaced (", "inaccessible":
        "has become inaccessible", "continues": "by a file that continues it"}

STEP = st.one_of(
    st.tuples(st.just("append"), st.integers(0, 6), st.booleans()),
    st.tuples(st.just("truncate"), st.integers(0, 12), st.booleans()),
    st.tuples(st.just("rename"), st.integers(0, 3), st.integers(0, 6), st.booleans(),
              st.booleans()),
    st.tuples(st.just("republish"), st.integers(0, 4)),
)


@given(fmt=st.sampled_from(["csv", "jsonl"]), first=st.integers(0, 8),
       plan=st.lists(STEP, max_size=20))
def test_every_row_is_read_once_in_order_across_rotations(fmt, first, plan):
    with tempfile.TemporaryDirectory() as folder:
        writer = Writer(folder, fmt)
        writer.append(first, False)[0]()
        steps = [s for kind, *args in plan for s in getattr(writer, kind)(*args)]
        steps += writer._whole()
        got, notes, src = follow(writer.path, steps, fmt)
        writer.fh.close()
    assert got == [(i + 1, *row) for i, row in enumerate(writer.rows)]
    assert src.position.rows == len(writer.rows) and src.stopped
    assert not [n for n in notes if "not read" in n], notes
    said = dict.fromkeys(writer.notes, 0)
    for note in notes:
        said[next(kind for kind, words in SAID.items() if words in note)] += 1
    assert said == writer.notes, notes


# --------------------------------------------------------------------------- regressions
def _live(tmp_path, text):
    path = tmp_path / "live.csv"
    path.write_bytes(text)
    return path


def test_shorter_content_after_copytruncate_is_read_at_once(tmp_path):
    path = _live(tmp_path, b"id,score,label\n" + b"".join(
        f"a{i},0.{i},1\n".encode() for i in range(1, 10)))
    got, notes, src = follow(path, [copytruncate(path, b"id,score,label\nb1,0.5,0\n")],
                             "csv")
    assert [key for _, key, _ in got] == [f"a{i}" for i in range(1, 10)] + ["b1"]
    assert notes == [f"{path}: file truncated; reading the new content from its start"]
    assert src.position == Position(10, len(b"id,score,label\nb1,0.5,0\n"))


def test_longer_content_after_copytruncate_is_read_from_its_start(tmp_path):
    """Truncated and written again beyond the read position between two polls: the old
    position would fall inside a line (the issue's ``expected 3 fields, got 2``)."""
    path = _live(tmp_path, b"id,score,label\na1,0.5,1\n")
    new = b"id,score,label\n" + b"".join(f"b{i},0.25,0\n".encode() for i in range(8))
    got, notes, _ = follow(path, [copytruncate(path, new)], "csv")
    assert [key for _, key, _ in got] == ["a1"] + [f"b{i}" for i in range(8)]
    assert notes == [f"{path}: file rewritten (its first bytes changed); reading the new "
                     "content from its start"]


def test_rename_and_create_is_followed_and_the_old_file_read_to_its_end(tmp_path):
    path = _live(tmp_path, b"id,score,label\na1,0.5,1\n")
    got, notes, src = follow(path, [rename_and_create(path, b"a2,0.25,0\n",
                                                      b"id,score,label\nb1,0.75,1\n")],
                             "csv")
    assert [key for _, key, _ in got] == ["a1", "a2", "b1"]
    assert notes == [f"{path} has been replaced (the old file was read to its end); "
                     "reading the new content from its start"]
    assert src.file_id == (os.stat(path).st_dev, os.stat(path).st_ino)


def test_an_unfinished_line_lost_with_the_old_content_is_said(tmp_path):
    path = _live(tmp_path, b"id,score,label\na1,0.5,1\na2,0.2")
    # data again, without a header
    got, notes, _ = follow(path, [copytruncate(path, b"b1,0.5,0\n")], "csv")
    assert [key for _, key, _ in got] == ["a1", "b1"]
    assert notes == [f"{path}: file truncated; reading the new content from its start; "
                     "the 6 bytes after the last row (an unfinished line) were not read"]


def test_new_content_with_other_columns_is_an_error(tmp_path):
    path = _live(tmp_path, b"id,score,label\na1,0.5,1\n")
    with pytest.raises(EventError, match=r"line 1: after it was replaced, its header "
                                         r"\['id', 'label', 'score'\] differs from the "
                                         r"header \['id', 'score', 'label'\]"):
        follow(path, [rename_and_create(path, b"", b"id,label,score\nb1,1,0.5\n")], "csv")


def test_a_resumed_source_at_a_new_contents_start(tmp_path):
    """A checkpoint taken right after a switch points at the new content's start (offset
    0); a resumed source reads its first line as the header (when it is one) or as data
    (when it names none of the columns)."""
    header = ["id", "score", "label"]
    for text, keys in [(b"id,score,label\nb1,0.5,0\n", ["b1"]),
                       (b"b1,0.5,0\nb2,0.25,1\n", ["b1", "b2"])]:
        path = _live(tmp_path, text)
        src = EventSource(path, start=Position(7, 0), header=header)
        got = [(row, rec[0]) for row, rec in src]
        assert src.header == header
        assert got == [(8 + i, k) for i, k in enumerate(keys)]
        assert src.position == Position(7 + len(keys), len(text))
        src.close()


def test_a_record_cut_inside_a_quoted_field_is_not_read_as_a_row(tmp_path):
    """The csv reader holds the first line of a record whose quoted field spans lines when
    the file is rotated: that half record is dropped (and said), not read as a row, and
    the new content is read with a fresh reader."""
    path = _live(tmp_path, b'id,score,label\na1,0.5,1\n"c\nd')
    got, notes, _ = follow(path, [copytruncate(path, b"id,score,label\nb1,0.5,0\n")], "csv")
    assert [key for _, key, _ in got] == ["a1", "b1"]
    assert notes == [f"{path}: file truncated; reading the new content from its start; "
                     "the 4 bytes after the last row (an unfinished line) were not read"]
