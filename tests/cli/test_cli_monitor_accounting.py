"""``streamrank monitor``: every label accounted for in the summary, the report lines and
``/metrics``; the row contract ``--require-score``; the summary's words (grammar, options
as typed; the signal by its name is in test_cli_monitor_follow); segment values that
cannot be mistaken.

The expected numbers are counted from the generated rows by plain loops.
"""

import csv
import io
import json
import random

from test_cli_monitor import last_json, run

from streamrank.cli._monitor_output import shown_value


def _early_file(path, n=300, seed=1):
    """``n`` label rows, then the ``n`` prediction rows of the same ids."""
    rnd = random.Random(seed)
    lines = ["id,score,label"] + [f"k{i},,{rnd.randint(0, 1)}" for i in range(n)] + [
        f"k{i},{rnd.random():.4f}," for i in range(n)]
    path.write_text("\n".join(lines) + "\n")
    return path


def _leads(path):
    """For each label row that comes before its id's prediction row: the rows between
    (a plain loop over the file)."""
    rows = list(csv.DictReader(open(path)))
    pred = {}
    for i, r in enumerate(rows):
        if r["score"]:
            pred.setdefault(r["id"], i)
    return [pred[r["id"]] - i for i, r in enumerate(rows)
            if not r["score"] and r["id"] in pred and i < pred[r["id"]]]


def test_labels_before_their_predictions_are_early_and_the_summary_gives_the_wait(tmp_path):
    """300 labels, then their 300 predictions (--window 100): not '300 late dropped' but
    300 unmatched, and the advice is the --label-wait that joins them (computed from the
    rows), which then joins them all."""
    path = _early_file(tmp_path / "e.csv")
    leads = _leads(path)
    assert len(leads) == 300
    res = run([path, "--window", 100, "--every", 1000, "--format", "json"])
    assert res.exit_code == 0, res.output
    assert "0 late dropped, 300 unmatched" in res.stderr
    assert (f"unmatched: 300 labels met no prediction; all came before their prediction, "
            f"up to {max(leads)} events ahead: --label-wait {max(leads)} would join them"
            in res.stderr)
    assert "labels came before their predictions: see --label-wait below" in res.stderr
    assert "--reference N" not in res.stderr
    last = last_json(res.stdout)
    assert (last["dropped"], last["unmatched"]) == (0, 300)
    res = run([path, "--window", 100, "--every", 1000, "--format", "json",
               "--label-wait", max(leads)])
    assert "300 joined, 0 unmatched" in res.stderr and "unmatched: " not in res.stderr
    assert last_json(res.stdout)["n"] == 100


def test_a_label_after_its_prediction_left_is_late_and_advises_the_reference(tmp_path):
    """Labels that lag the window: late dropped (not unmatched), and the one-class
    reference advice is --reference N."""
    n, lag = 200, 150
    lines = ["id,score,label"]
    for i in range(n + lag):
        if i < n:
            lines.append(f"k{i},{i / n:.4f},")
        if i >= lag:
            lines.append(f"k{i - lag},,{(i - lag) % 2}")
    path = tmp_path / "late.csv"
    path.write_text("\n".join(lines) + "\n")
    # the oracle: a label is late when its prediction is among the last 100 evicted
    held, evicted, late, unmatched = [], [], 0, 0
    for r in csv.DictReader(open(path)):
        if r["score"]:
            held.append(r["id"])
            if len(held) > 100:
                evicted.append(held.pop(0))
        elif r["id"] not in held:
            late += r["id"] in evicted[-100:]
            unmatched += r["id"] not in evicted[-100:]
    res = run([path, "--window", 100, "--every", 10_000])
    assert res.exit_code == 0, res.output
    assert f"{late} late dropped, {unmatched} unmatched" in res.stderr and late > 0
    assert "give --reference N" in res.stderr


EMPTY = "id,y,p\na,1,0.5\nb,0,\nc,1,0.2\n"


def test_an_empty_score_cannot_pass_unseen():
    """Without the contract the empty score is a label row for an id never predicted:
    the summary names it; with --require-score it is a bad row (exit 2, where it is),
    or skipped with --on-error skip."""
    base = ["-", "--label", "y", "--score", "p"]
    res = run(base, input=EMPTY)
    assert res.exit_code == 0
    assert "0 late dropped, 1 unmatched" in res.stderr
    assert ("unmatched: 1 label met no prediction (none came later): a prediction row "
            "with an empty score reads as a label row; if every row is a prediction, "
            "give --require-score") in res.stderr
    res = run([*base, "--require-score"], input=EMPTY)
    assert res.exit_code == 2
    assert ("<stdin>, line 3 (row 2), column 'p': '': no score, and every row is a "
            "prediction (a score is required) (use --on-error skip") in res.stderr
    res = run([*base, "--require-score", "--on-error", "skip", "--format", "json"],
              input=EMPTY)
    assert res.exit_code == 0 and "1 row skipped" in res.stderr
    assert "0 unmatched" in res.stderr and last_json(res.stdout)["n"] == 2


def test_the_contract_holds_for_json_nulls_and_the_challengers_score(tmp_path):
    path = tmp_path / "e.jsonl"
    path.write_text("\n".join(json.dumps(o) for o in [
        {"id": "a", "label": 1, "score": 0.5}, {"id": "b", "label": 0, "score": None},
        {"id": "c", "label": 1}]) + "\n")
    res = run([path, "--require-score", "--on-error", "skip"])
    assert res.exit_code == 0 and "2 rows skipped" in res.stderr
    assert f"{path}, line 2, column 'score': no score" in res.stderr
    assert f"{path}, line 3, column 'score': no score" in res.stderr
    ch = tmp_path / "c.csv"
    ch.write_text("id,score,ch,label\na,0.5,0.4,1\nb,0.2,,0\n")
    res = run([ch, "--challenger-score", "ch", "--require-score"])
    assert res.exit_code == 2 and f"{ch}, line 3 (row 2), column 'ch': ''" in res.stderr


def test_metrics_say_what_each_counter_counts():
    """The /metrics collector: late drops and unmatched labels are separate counters,
    their help says which is which (read without a server)."""
    from streamrank.cli._monitor_metrics import Collector
    from streamrank.monitor import Monitor

    m = Monitor(window=2, min_window=2)
    for k in "abc":
        m.observe(k, score=0.5)             # "a" is evicted
    m.observe("a", label=1)                 # late
    m.observe("never", label=0)             # unmatched
    fams = {f.name: f for f in Collector(m, lambda: 0, "model").collect()}
    late, unmatched = fams["streamrank_late_dropped"], fams["streamrank_unmatched_labels"]
    assert [s.value for s in late.samples] == [1.0] and "left the window" in \
        late.documentation
    assert [s.value for s in unmatched.samples] == [1.0]
    assert "met no prediction" in unmatched.documentation


def _segment_file(path, values, n_each=40, seed=3):
    rnd = random.Random(seed)
    rows = []
    for i in range(n_each * len(values)):
        rows.append({"id": f"k{i}", "score": round(rnd.random(), 3),
                     "label": rnd.randint(0, 1), "seg": values[i % len(values)]})
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, ["id", "score", "label", "seg"])
        w.writeheader()
        w.writerows(rows)
    return path


def test_segment_values_are_shown_unambiguously(tmp_path):
    """' us', 'us ' and 'us' are three lines that look different; a value with a newline
    stays on its line (quoted, escaped); JSON and CSV keep the raw values."""
    values = [" us", "us ", "us", "a\nb", "it's", "(total)"]
    path = _segment_file(tmp_path / "s.csv", values)
    res = run([path, "--segment", "seg", "--window", 20, "--every", 10_000])
    assert res.exit_code == 0, res.output
    table = res.stdout.splitlines()
    assert len(table) == 1 + len(values) + 1       # the header, a line per value, total
    shown = ["' us'", "'us '", "us", "'a\\nb'", '"it\'s"', "'(total)'"]
    assert [shown_value(v) for v in values] == shown
    for line, text in zip(table[1:], shown + ["(total)"]):
        assert line.startswith(f"{40 * len(values):>10}  {text:<20}  "), line
    for v in values:
        assert f"  segment {shown_value(v)}: " in res.stderr
    assert len(res.stderr.splitlines()) == len([ln for ln in res.stderr.split("\n") if ln])
    out = run([path, "--segment", "seg", "--window", 20, "--every", 10_000,
               "--format", "json"])
    assert [json.loads(ln)["segment"] for ln in out.stdout.splitlines()] == values + [None]
    out = run([path, "--segment", "seg", "--window", 20, "--every", 10_000,
               "--format", "csv"])
    assert [r["segment"] for r in csv.DictReader(io.StringIO(out.stdout))] == values + [""]


def test_shown_value_quotes_only_what_could_be_mistaken():
    assert [shown_value(v) for v in ["us", "united states", " us", "us ", "a\tb", "",
                                     "x\u00a0", 'say "hi"', "(total)", 5]] == [
        "us", "united states", "' us'", "'us '", "'a\\tb'", "''", "'x\\xa0'",
        "'say \"hi\"'", "'(total)'", "5"]


def test_one_segment_is_one_segment(tmp_path):
    path = _segment_file(tmp_path / "one.csv", ["fr"])
    res = run([path, "--segment", "seg", "--window", 20, "--every", 10_000])
    assert res.exit_code == 0, res.output
    assert "  1 segment (max 64); holm correction; group AUC " in res.stderr
    assert " over 1 segment\n" in res.stderr and "1 report, " in res.stderr
    assert "segment fr: 20 labeled + 0 pending" in res.stderr and "; 0 alerts" in \
        res.stderr
    assert "40 events, 40 predictions" in res.stderr and "0 rows skipped" in res.stderr


def test_a_resume_names_the_challengers_option_as_typed(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text("id,score,ch,ch2,label\n" + "".join(
        f"k{i},{i / 50:.2f},{1 - i / 50:.2f},{i % 7 / 7:.2f},{i % 2}\n" for i in range(50)))
    ckpt = tmp_path / "c.ckpt"
    res = run([path, "--challenger-score", "ch", "--checkpoint", ckpt])
    assert res.exit_code == 0, res.output
    res = run([path, "--challenger-score", "ch2", "--checkpoint", ckpt, "--resume"])
    assert res.exit_code == 2
    assert "--challenger-score is 'ch2'; the checkpoint's run read 'ch'" in res.stderr
    assert "challenger_score" not in res.stderr
    res = run([path, "--challenger-score", "ch", "--checkpoint", ckpt, "--resume",
               "--max-history", 5, "--alpha", 0.05])
    assert res.exit_code == 2
    assert ("--max-history 5: the checkpoint's run has --max-history 10000 (which a "
            "resumed run keeps)") in res.stderr
    assert "--alpha 0.05: the checkpoint's run has --alpha 0.01" in res.stderr
    assert "max_history" not in res.stderr
