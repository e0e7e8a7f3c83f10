"""Every table the command line prints fits 100 columns (``--format table``), and what
the table leaves out or cuts short is in ``--format json`` and ``--format csv``, whose
columns stay as they were.

Each command runs on small data made wide on purpose: ISO times, a drift detector, a
challenger, many segments with long names, long column and file names, large counts,
many models and contaminations."""

from __future__ import annotations

import csv
import io
import json
import random
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from streamrank.cli import main
from streamrank.monitor.table import line_columns

WIDTH = 100


def invoke(*args):
    res = CliRunner().invoke(main, [str(a) for a in args])
    assert res.exit_code in (0, 1), res.output
    return res


def assert_narrow(text, skip=()):
    """Every line of ``text`` is at most 100 characters (but the lines that start with
    one of ``skip``)."""
    wide = [ln for ln in text.splitlines()
            if len(ln) > WIDTH and not ln.startswith(tuple(skip))]
    assert not wide, "\n".join(f"{len(ln)}: {ln}" for ln in wide)


def csv_rows(text):
    return list(csv.DictReader(io.StringIO(text)))


# ----------------------------------------------------------------------------- monitor
SEGMENTS = [f"region-europe-west-datacenter-with-a-long-name-{i:02d}" for i in range(12)]


def events_file(path, n=2400, seed=1):
    """Predictions with an ISO time, a segment (12 long names), a challenger, and a
    label 20 predictions late; from prediction 1200 on the champion is noise in half
    the segments (alerts, detections)."""
    rnd = random.Random(seed)
    rows, pending = [], []
    for i in range(n):
        y = rnd.random() < 0.4
        seg = SEGMENTS[i % len(SEGMENTS)]
        score = rnd.random() if i > 1200 and i % 2 else min(1.0, 0.5 * y + 0.6 * rnd.random())
        ch = min(1.0, 0.4 * y + 0.7 * rnd.random())
        ts = f"2026-01-01T{i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}"
        rows.append([f"k{i}", ts, seg, f"{score:.4f}", f"{ch:.4f}", ""])
        pending.append((f"k{i}", int(y)))
        if len(pending) > 20:
            k, lab = pending.pop(0)
            rows.append([k, ts, "", "", "", lab])
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "ts", "seg", "score", "ch", "label"])
        w.writerows(rows)
    return path


@pytest.fixture(scope="module")
def events(tmp_path_factory):
    return events_file(tmp_path_factory.mktemp("wide") / "events.csv")


SHAPES = {"plain": [], "challenger": ["--challenger-score", "ch"],
          "segments": ["--segment", "seg"],
          "segments+challenger": ["--segment", "seg", "--challenger-score", "ch"]}


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("extra", [[], ["--time", "ts", "--detector", "adwin"]],
                         ids=["bare", "time+detector"])
def test_monitor_table_fits_and_json_csv_keep_every_column(events, shape, extra):
    base = ["monitor", events, "--window", 300, "--every", 400, "--alpha", 0.05,
            *SHAPES[shape], *extra]
    table = invoke(*base)
    assert_narrow(table.stdout)
    lines = table.stdout.splitlines()
    head = lines[0].split()
    paired, segmented = "challenger" in shape, "segments" in shape
    assert head[0] == "events" and ("time" in head) == bool(extra)
    assert ("drift" in head) == bool(extra)    # only when a detector runs
    assert ("segment" in head) == segmented
    assert ("ref/diff" if paired else "ref_auc") in head
    assert ("p_adj" if segmented else "p_value") in head
    js = [json.loads(ln) for ln in invoke(*base, "--format", "json").stdout.splitlines()]
    rows = csv_rows(invoke(*base, "--format", "csv").stdout)
    models = 2 if paired else 1
    columns = list(line_columns(models, segmented))
    if extra:       # ISO times: the POSIX seconds too
        columns.insert(2, "time_epoch")
    assert [list(x) for x in js] == [columns] * len(js)
    assert list(rows[0]) == columns and len(rows) == len(js)
    # columns the table leaves out are in JSON and CSV
    dropped = {"auc_low", "auc_high", "se", "dropped", "unmatched", "metric", "concordant",
               "tied_both", "reference_auc"}
    if paired:
        dropped |= {"paired_n", "diff_low", "diff_high", "challenger_reference_auc",
                    "challenger_p_value", "challenger_drop_alert"}
    if segmented:
        dropped |= {"p_value", "segment_alert", "pending", "z"} | (
            {"paired_p_value", "segment_challenger_alert"} if paired else set())
    assert dropped <= set(columns)
    # a line per JSON line; with a challenger a second line, the challenger's
    body = lines[1:]
    if paired:
        assert len(body) == 2 * len(js)
        assert all(ln.startswith("challenger ") for ln in body[1::2])
        assert not any(ln.startswith("challenger") for ln in body[::2])
        # the challenger's line: its AUC and the paired test (diff signed)
        for ln, rec in zip(body[1::2], js):
            if rec["diff"] not in (None, "nan"):
                assert f"{rec['challenger_auc']:.4f}" in ln and f"{rec['diff']:+.4f}" in ln
    else:
        assert len(body) == len(js)
    for ln, rec in zip(body[::models], js):
        assert int(ln.split()[0]) == rec["events"]
        if rec["auc"] != "nan":
            assert f"{rec['auc']:.4f}" in ln
    if segmented:
        # long segment names: cut with an ellipsis in the table, whole in JSON and CSV
        assert {r["segment"] for r in js} == set(SEGMENTS) | {None}
        assert {r["segment"] for r in rows} == set(SEGMENTS) | {""}
        assert not any(s in table.stdout for s in SEGMENTS)
        assert "…" in table.stdout and "(total)" in table.stdout
        # cut in the middle: their ends (the numbers) still tell them apart
        at = head.index("segment")
        shown = {ln.split()[1 if ln.startswith("challenger") else at]   # (no time there)
                 for ln in body if "(total)" not in ln}
        assert len(shown) == len(SEGMENTS) and all("…" in x for x in shown)


def test_monitor_table_time_is_to_the_second(tmp_path):
    """ISO times with milliseconds: to the second in the table (it stays 100 wide), as
    read in JSON and CSV."""
    path = tmp_path / "ms.csv"
    path.write_text("id,ts,score,label\n1,2026-01-01T00:00:00.250,0.9,1\n"
                    "2,2026-01-01T00:00:00.750,0.1,0\n3,2026-01-01T00:00:01.5,0.8,1\n"
                    "4,2026-01-01T00:00:02.125,0.3,0\n")
    base = ["monitor", path, "--time", "ts", "--every", 2, "--detector", "adwin"]
    table = invoke(*base).stdout
    assert_narrow(table)
    assert [ln.split()[1] for ln in table.splitlines()[1:]] == [
        "2026-01-01T00:00:00Z", "2026-01-01T00:00:02Z"]
    rows = csv_rows(invoke(*base, "--format", "csv").stdout)
    assert [r["time"] for r in rows] == ["2026-01-01T00:00:00.750Z", "2026-01-01T00:00:02.125Z"]


def test_monitor_prose_summary_is_unchanged(events):
    """The summary on stderr is prose (not a table): its lines are as before."""
    res = invoke("monitor", events, "--window", 300, "--every", 400, "--segment", "seg",
                 "--challenger-score", "ch")
    assert f"  segment {SEGMENTS[0]}: " in res.stderr
    assert "    challenger AUC " in res.stderr


# ----------------------------------------------------------------------------- eval
LONG = "challenger_score_of_the_new_ranking_model_trained_on_the_last_ninety_days_" * 2


@pytest.fixture(scope="module")
def preds(tmp_path_factory):
    rnd = random.Random(0)
    path = tmp_path_factory.mktemp("eval") / "preds.csv"
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["y", "p", LONG, "user", "qid", "rel", "w"])
        for i in range(300):
            y = int(rnd.random() < 0.4)
            p = min(1.0, 0.3 * y + 0.7 * rnd.random())
            w.writerow([y, f"{p:.4f}", f"{min(1.0, max(0.0, p + rnd.gauss(0, .1))):.4f}",
                        f"u{i % 17}", f"q{i % 11}", rnd.randint(0, 3), rnd.randint(1, 3)])
    return path


EVAL_OPTIONS = {
    "ci+compare": ["--label", "y", "--score", "p", "--ci", "--compare-score", LONG,
                   "--max-fpr", "0.1", "--weight", "w"],
    "bootstrap": ["--label", "y", "--score", "p", "--ci", "--ci-method", "bootstrap",
                  "--resamples", "50", "--compare-score", LONG, "--alternative", "greater"],
    "group": ["--label", "y", "--score", "p", "--group", "user", "--weight", "w",
              "--max-fpr", "0.2"],
    "query": ["--query", "qid", "--label", "rel", "--score", "p", "--k", "5"],
    "curve": ["--label", "y", "--score", "p", "--curve", "roc"],
}


@pytest.mark.parametrize("name", list(EVAL_OPTIONS))
def test_eval_table_fits_and_json_csv_keep_every_field(preds, name):
    args = ["eval", preds, *EVAL_OPTIONS[name]]
    table = invoke(*args)
    assert_narrow(table.stdout)
    as_csv = invoke(*args, "--format", "csv").stdout
    as_json = json.loads(invoke(*args, "--format", "json").stdout)
    if name == "curve":
        assert len(table.stdout.splitlines()) == len(as_json) + 1 == len(csv_rows(as_csv)) + 1
        return
    metrics = [r["metric"] for r in csv_rows(as_csv)]
    shown = [ln.split()[0] for ln in table.stdout.splitlines()[1:]]
    assert shown == metrics         # the table has every field (a long value cut short)
    assert set(metrics) <= set(as_json)
    if "--compare-score" in args:
        assert as_json["compare_score"] == LONG
        assert dict((r["metric"], r["value"]) for r in csv_rows(as_csv))["compare_score"] \
            == LONG
        line = next(ln for ln in table.stdout.splitlines() if ln.startswith("compare_score"))
        assert line.endswith("…") and LONG not in table.stdout


# ----------------------------------------------------------------------------- epochs
@pytest.fixture(scope="module")
def epoch_run(tmp_path_factory):
    """3000 items (counts of 7 digits), long file names, binary and 4-level labels."""
    d = tmp_path_factory.mktemp("epochs")
    rnd = random.Random(0)
    n = 3000
    y = [rnd.randint(0, 3) for _ in range(n)]
    with open(d / "labels.csv", "w") as f:
        f.write("item,y,grade,w\n")
        for i, g in enumerate(y):
            f.write(f"i{i},{int(g >= 2)},{g},{rnd.randint(1, 3)}\n")
    files = []
    for e in range(1, 5):
        path = d / f"checkpoint_of_the_ranking_model_after_training_epoch_{e:03d}.csv"
        with open(path, "w") as f:
            f.write("item,p\n")
            for i, g in enumerate(y):
                f.write(f"i{i},{min(1.0, 0.05 * e * g + rnd.random()):.3f}\n")
        files.append(path)
    return d, files


@pytest.mark.parametrize("options", [["--label", "y"], ["--label", "grade"],
                                     ["--label", "y", "--weight", "w", "--patience", "1"]],
                         ids=["binary", "ordinal", "weighted"])
def test_epochs_table_fits_and_json_csv_keep_every_column(epoch_run, options):
    d, files = epoch_run
    args = ["epochs", *files, "--labels", d / "labels.csv", "--score", "p", "--id", "item",
            *options]
    table = invoke(*args)
    assert_narrow(table.stdout)
    doc = json.loads(invoke(*args, "--format", "json").stdout)
    rows = csv_rows(invoke(*args, "--format", "csv").stdout)
    keys = list(doc["epochs"][0])
    assert list(rows[0]) == keys and len(rows) == len(doc["epochs"]) == len(files)
    assert [r["file"] for r in rows] == [str(f) for f in files]     # whole paths
    lines = table.stdout.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith("epoch "))
    titles = lines[at].split()
    short = {"C": "concordant", "D": "discordant", "T": "tied_score"}
    shown = [short.get(t, t) for t in titles]
    assert shown == [k for k in keys if k in shown]     # the records' order
    assert {"epoch", "file", "concordant", "discordant"} <= set(shown)
    assert "auc" in shown or {"c_index", "tau_b"} <= set(shown)
    # the counts of 7 digits leave some columns out: JSON and CSV have them
    assert set(keys) - set(shown) <= {"changed", "churn", "tied_score", "right_wrong"}
    for ln, rec in zip(lines[at + 1:], doc["epochs"]):
        cells = dict(zip(shown, ln.split()))
        assert int(cells["epoch"]) == rec["epoch"]
        assert float(cells["concordant"]) == pytest.approx(rec["concordant"], rel=1e-5)
        assert Path(rec["file"]).name not in ln and "…" in cells["file"]
    assert "C, D, T: concordant, discordant, tied-score pairs" in table.stdout


# ----------------------------------------------------------------------------- compare
MODELS = [f"gradient_boosting_with_a_long_configuration_name_{i:02d}" for i in range(14)]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    rnd = random.Random(3)
    path = tmp_path_factory.mktemp("compare") / "results.csv"
    with open(path, "w") as f:
        f.write("model,dataset,acc,train_time\n")
        for d in range(10):
            for i, m in enumerate(MODELS):
                f.write(f"{m},d{d},{0.5 + 0.02 * i + 0.2 * rnd.random():.3f},"
                        f"{100 * rnd.random():.1f}\n")
    return path


def test_compare_tables_fit_and_json_csv_keep_every_value(results):
    args = ["compare", results, "--cardinal", "acc", "--ordinal", "train_time:smaller:4",
            "--model", MODELS[0], "-B", 20, "--seed", 0, "--contamination", "0,1,2,3,4,5,6"]
    table = invoke(*args)
    # the two lines of prose above the relation are as docs/compare.md shows them
    assert_narrow(table.stdout, skip=(f"{len(MODELS)} models x", "Empirical GSD relation"))
    doc = json.loads(invoke(*args, "--format", "json").stdout)
    rows = csv_rows(invoke(*args, "--format", "csv").stdout)
    assert doc["models"] == MODELS and len(rows) == len(MODELS) * (len(MODELS) - 1)
    assert {f"p_value_k{k}" for k in range(1, 7)} <= set(rows[0])
    # the relation: models numbered, columns in blocks; every value as in JSON
    statistic = {(p["competitor"], p["model"]): p["statistic"] for p in doc["pairs"]}
    lines = table.stdout.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("Empirical")) + 1
    seen, cols = 0, []
    for ln in lines[start:]:
        if ln.startswith("Strict dominances"):
            break
        if not ln.strip():
            continue
        if all(c.isdigit() for c in ln.split()):    # a block's titles: the numbers
            cols = [int(c) - 1 for c in ln.split()]
            continue
        row = int(ln.split()[0]) - 1
        assert ln.split()[1].startswith(MODELS[row][:10])
        for col, cell in zip(cols, ln.split()[-len(cols):]):
            if col == row:
                assert cell == "."
            else:
                assert float(cell) == pytest.approx(statistic[MODELS[row], MODELS[col]],
                                                    abs=5e-5)
                seen += 1
    assert seen == len(MODELS) * (len(MODELS) - 1)
    # the permutation tests: names cut short, the largest contaminations' p-values left
    # out of the table (every decision is below it; JSON has every p-value)
    head = next(ln for ln in lines if ln.startswith("competitor"))
    assert head.split()[:4] == ["competitor", "statistic", "p_value", "rejected"]
    for k in range(1, 7):
        assert f"with up to {k} contaminated data sets:" in table.stdout
    assert all(f"p_value_k{k}" in t for t in doc["test"]["tests"] for k in range(1, 7))
    assert re.search(r"^GSD front: ", table.stdout, re.M)


def test_compare_small_relation_is_as_before(results, tmp_path):
    """A relation that fits keeps its layout (names as titles): docs/compare.md's."""
    path = tmp_path / "small.csv"
    path.write_text("model,dataset,acc\na,1,0.8\na,2,0.9\nb,1,0.7\nb,2,0.8\n")
    out = invoke("compare", path, "--cardinal", "acc").stdout.splitlines()
    i = next(i for i, ln in enumerate(out) if ln.startswith("Empirical"))
    assert out[i + 1:i + 4] == ["                a        b", "a               .   0.5000",
                                "b         -0.5000        ."]
