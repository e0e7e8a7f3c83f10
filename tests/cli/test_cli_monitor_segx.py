"""``streamrank monitor --segment`` composed with ``--challenger-score`` (a paired monitor
per segment) and with ``--label-wait`` (labels without a segment that come before their
prediction): every output format, the plot, ``--fail-on-alert``, ``/metrics``,
checkpoint and resume, each against an independent computation."""

import json
import random
import urllib.request

import numpy as np
import pytest
from prometheus_client.parser import text_string_to_metric_families
from test_cli_monitor import PNG, run

from streamrank import delong_test, group_auc_score
from streamrank.monitor import PairedMonitor, SegmentedMonitor

W = 150
FIELDS = "id,country,score,challenger,label\n"


def shadow_rows(n=1800, seed=3, degrade_at=None):
    """Prediction rows (both scores, the segment) and label rows a few rows later
    (without the segment); from ``degrade_at`` on the challenger ranks segment 'us'
    poorly."""
    rnd = random.Random(seed)
    out, due = [], []
    for i in range(n):
        seg = rnd.choice(["fr", "de", "us"])
        y = int(rnd.random() < 0.4)
        s = rnd.gauss(1.2 * y, 1)
        weak = degrade_at is not None and i >= degrade_at and seg == "us"
        c = rnd.gauss((0.1 if weak else 1.2) * y, 1)
        out.append(f"p{i},{seg},{s:.3f},{c:.3f},")
        due.append((i + rnd.randint(0, 4), f"p{i},,,,{y}"))
        out += [t for j, t in due if j <= i]
        due = [(j, t) for j, t in due if j > i]
    return out + [t for _, t in due]


def write(path, lines):
    path.write_text(FIELDS + "\n".join(lines) + "\n")
    return path


def json_lines(stdout):
    return [json.loads(ln) for ln in stdout.splitlines() if ln.startswith("{")]


def final_windows(lines):
    """segment -> (y, champion, challenger) of its last W predictions."""
    pred, label, order = {}, {}, {}
    for ln in lines:
        k, seg, s, c, y = ln.split(",")
        if s:
            pred[k] = (seg, float(s), float(c))
            order.setdefault(seg, []).append(k)
        else:
            label[k] = int(y)
    out = {}
    for seg, keys in order.items():
        keys = [k for k in keys[-W:] if k in label]
        out[seg] = (np.array([label[k] for k in keys]),
                    np.array([pred[k][1] for k in keys]),
                    np.array([pred[k][2] for k in keys]))
    return out


ARGS = ["--segment", "country", "--challenger-score", "challenger", "--window", W,
        "--min-window", 20]


@pytest.mark.parametrize("alert_on", ["worse", "both"])
def test_each_segment_matches_delong_and_the_total_group_auc(tmp_path, alert_on):
    lines = shadow_rows()
    path = write(tmp_path / "e.csv", lines)
    res = run([path, *ARGS, "--every", 600, "--format", "json", "--alert-on", alert_on])
    assert res.exit_code == 0, res.output
    out = json_lines(res.stdout)
    last = [x for x in out if x["events"] == out[-1]["events"]]
    assert sorted(x["segment"] for x in last[:-1]) == ["de", "fr", "us"]
    assert last[-1]["segment"] is None
    wins = final_windows(lines)
    ys, sa, sb, gs = [], [], [], []
    for x in last[:-1]:
        y, a, b = wins[x["segment"]]
        t = delong_test(y, b, a, alternative={"worse": "less", "both": "two-sided"}[
            alert_on])
        assert x["paired_p_value"] == pytest.approx(t.p_value, rel=1e-9, abs=1e-15)
        assert x["diff"] == pytest.approx(t.difference, rel=1e-9, abs=1e-15)
        assert x["paired_n"] == x["n"] == x["challenger_n"] == y.size
        ys += y.tolist()
        sa += a.tolist()
        sb += b.tolist()
        gs += [x["segment"]] * y.size
    total = last[-1]
    assert total["metric"] == "gauc"
    assert total["auc"] == pytest.approx(group_auc_score(ys, sa, gs), rel=1e-12)
    assert total["challenger_auc"] == pytest.approx(group_auc_score(ys, sb, gs), rel=1e-12)
    # the corrections: Holm over the segments, the drop tests and the paired apart
    ps = sorted(x["paired_p_value"] for x in last[:-1])
    holm = [min(1, max((3 - j) * p for j, p in enumerate(ps[:i + 1])))
            for i in range(3)]
    got = sorted(x["paired_p_adjusted"] for x in last[:-1])
    assert got == pytest.approx(holm, rel=1e-12)
    assert all(x["challenger_alert"] == (x["paired_p_adjusted"] < 0.01)
               and x["segment_challenger_alert"] == (x["paired_p_value"] < 0.01)
               for x in last[:-1])


def test_every_format_and_the_summary(tmp_path):
    path = write(tmp_path / "e.csv", shadow_rows(600))
    table = run([path, *ARGS, "--every", 300])
    assert table.exit_code == 0, table.output
    head = table.stdout.splitlines()[0].split()
    # the champion's line, then the challenger's (the paired test, corrected: p_adj)
    assert head == ["events", "segment", "n", "auc", "ref/diff", "p_adj", "alert"]
    lines = table.stdout.splitlines()[1:]
    assert [ln.split()[0] == "challenger" for ln in lines] == \
        [False, True] * (len(lines) // 2)
    assert sum("(total)" in ln for ln in lines) == 2 * 4   # 1200 events: 4 reports
    assert max(len(ln) for ln in table.stdout.splitlines()) <= 100
    assert "challenger group AUC" in table.stderr and "difference" in table.stderr
    csv = run([path, *ARGS, "--every", 300, "--format", "csv"])
    header = csv.stdout.splitlines()[0].split(",")
    assert {"segment", "challenger_auc", "paired_p_value", "paired_p_adjusted",
            "segment_challenger_alert"} <= set(header)
    assert len(csv.stdout.splitlines()) == 1 + 4 * 4
    js = json_lines(run([path, *ARGS, "--every", 300, "--format", "json"]).stdout)
    assert [list(x) for x in js] == [header] * len(js)


def test_plot_fail_on_alert_and_metrics(tmp_path):
    lines = shadow_rows(2400, 5, degrade_at=900)
    path = write(tmp_path / "e.csv", lines)
    png = tmp_path / "p.png"
    res = run([path, *ARGS, "--every", 300, "--alert-on", "worse", "--fail-on-alert",
               "--plot", png, "--format", "json"])
    assert res.exit_code == 1, res.output
    assert png.read_bytes()[:8] == PNG
    out = json_lines(res.stdout)
    fired = {x["segment"] for x in out if x["segment"] is not None and x["challenger_alert"]}
    assert fired == {"us"}
    assert not any(x["alert"] for x in out)     # the champion did not drop
    # /metrics: every per-segment sample per model, the paired gauges per segment
    from streamrank.cli._monitor_metrics import serve_metrics

    m = SegmentedMonitor(factory=lambda: PairedMonitor(window=W, min_window=20,
                                                       alert_on="worse"))
    for ln in lines:
        k, seg, s, c, y = ln.split(",")
        if s:
            m.observe(k, segment=seg, score=float(s), challenger=float(c))
        else:
            m.observe(k, label=int(y))
    rep = m.report()
    server = serve_metrics(m, lambda: 0, "127.0.0.1", 0, "champ", "chal")
    try:
        text = urllib.request.urlopen(f"http://127.0.0.1:{server.server_address[1]}"
                                      "/metrics", timeout=10).read().decode()
    finally:
        server.shutdown()
        server.server_close()
    samples = {(s.name, s.labels.get("model"), s.labels.get("segment")): s.value
               for fam in text_string_to_metric_families(text) for s in fam.samples}
    for seg in ("fr", "de", "us"):
        x = rep[seg]
        assert samples[("streamrank_window_auc", "champ", seg)] == x.champion.auc
        assert samples[("streamrank_window_auc", "chal", seg)] == x.challenger.auc
        assert samples[("streamrank_paired_p_value", "chal", seg)] == x.p_value
        i = rep.segments.index(seg)
        assert samples[("streamrank_paired_p_value_adjusted", "chal", seg)] == \
            rep.paired_p_adjusted[i]
    assert samples[("streamrank_window_gauc", "champ", None)] == rep.gauc
    assert samples[("streamrank_window_gauc", "chal", None)] == rep.challenger_gauc
    assert samples[("streamrank_stream_paired_alerts_total", "chal", None)] == 1


def test_resume_equals_an_uninterrupted_run(tmp_path):
    lines = shadow_rows(1500, 8, degrade_at=700)
    path = write(tmp_path / "e.csv", lines)
    part = write(tmp_path / "live.csv", lines[:len(lines) // 2])
    ckpt = tmp_path / "m.ckpt"
    args = [*ARGS, "--every", 250, "--format", "json", "--label-wait", 3]
    full = run([path, *args])
    first = run([part, *args, "--checkpoint", ckpt])
    assert first.exit_code == 0, first.output
    with open(part, "a") as f:
        f.write("\n".join(lines[len(lines) // 2:]) + "\n")
    second = run([part, "--window", W, "--every", 250, "--format", "json",
                  "--checkpoint", ckpt, "--resume", "--challenger-score", "challenger"])
    assert second.exit_code == 0, second.output
    got = [x for x in json_lines(first.stdout) if x["events"] % 250 == 0] \
        + json_lines(second.stdout)
    assert got == json_lines(full.stdout)
    assert second.stderr.splitlines()[-8:] == full.stderr.splitlines()[-8:]
    res = run([part, "--checkpoint", ckpt, "--resume"])     # no --challenger-score
    assert res.exit_code == 2 and "needs --challenger-score" in res.stderr


def test_labels_before_their_predictions_lose_nothing(tmp_path):
    """A segmented run with --label-wait: the labels (without the segment) moved before
    their predictions give the ordered file's reports, and the joined/unmatched/waiting
    columns say so."""
    lines = shadow_rows(900, 11)
    path = write(tmp_path / "ordered.csv", lines)
    mixed = list(lines)
    for i in range(1, len(mixed)):      # each label row just before its prediction row
        k = mixed[i].split(",")[0]
        if mixed[i].endswith((",0", ",1")) and mixed[i - 1].startswith(k + ","):
            mixed[i - 1], mixed[i] = mixed[i], mixed[i - 1]
    moved = sum(a != b for a, b in zip(lines, mixed)) // 2
    assert moved > 50
    shuffled = write(tmp_path / "mixed.csv", mixed)
    base = ["--segment", "country", "--window", W, "--every", len(lines),
            "--format", "json"]
    want = json_lines(run([path, *base]).stdout)
    lossy = run([shuffled, *base])
    # without a wait: unmatched, not late, each label one row (event) ahead
    assert (f"0 late dropped, {moved} unmatched ({moved} of them without a segment)"
            in lossy.stderr)
    assert "up to 1 event ahead: --label-wait 1 would join them" in lossy.stderr
    res = run([shuffled, *base, "--label-wait", 2])
    got = json_lines(res.stdout)
    for a, b in zip(got, want):
        assert (a.pop("joined"), a.pop("waiting"), a["unmatched"]) == (moved, 0, 0)
        assert a == b
    assert f"{moved} joined, 0 unmatched" in res.stderr
    assert "0 late dropped, 0 unmatched (0 of them without a segment)" in res.stderr
