"""The core install computes without any extra, and a missing extra names itself.

Each check runs in a fresh interpreter whose imports of the extras' packages (River, click,
tqdm, pyarrow, prometheus_client, matplotlib, dask, distributed) and of the test peers
(scikit-learn, pandas, lifelines) fail as they fail where they are not installed
(`ModuleNotFoundError`), so that nothing the core imports can come from them.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

BLOCKED = ("river", "click", "tqdm", "pyarrow", "prometheus_client", "matplotlib", "dask",
           "distributed", "sklearn", "pandas", "lifelines")



def prelude(blocked=BLOCKED) -> str:
    """Code that makes the imports of ``blocked`` packages fail (`ModuleNotFoundError`)."""
    return f"""
import importlib.abc, sys
BLOCKED = {tuple(blocked)!r}

class _NotInstalled(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, _NotInstalled())
"""


def run_without_extras(code: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter without the extras; fail on a non-zero exit."""
    res = subprocess.run([sys.executable, "-c", prelude() + textwrap.dedent(code)],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    return res


def test_every_core_capability_computes_without_extras():
    res = run_without_extras("""
        import math, warnings
        import numpy as np
        import streamrank as sr
        from streamrank import ranking, epochs, compare, structures
        from streamrank.monitor import Monitor, PairedMonitor, SegmentedMonitor

        rng = np.random.default_rng(0)
        n = 300
        y = rng.integers(0, 2, n)
        s = np.round(rng.random(n), 1)           # heavy ties
        t = s + rng.normal(0, 0.1, n)
        w = rng.integers(1, 4, n)
        g = rng.integers(0, 5, n)
        out = []
        # batch metrics, intervals, curves
        out += [sr.roc_auc_score(y, s, sample_weight=w), sr.average_precision_score(y, s),
                sr.kendall_tau(s, t), sr.somers_d(y, s), sr.goodman_kruskal_gamma(s, t),
                sr.concordance_index(t, s, y), sr.group_auc_score(y, s, g)]
        out += [sr.pair_counts(y, s).concordant]
        out += [sr.roc_auc_ci(y, s).high, sr.concordance_ci(t, s).high,
                sr.bootstrap_ci("auc", y, s, n_resamples=200, random_state=0).high,
                sr.delong_test(y, s, t).p_value, sr.concordance_variance(t, s)[0]]
        out += [sr.roc_curve(y, s)[0][-1], sr.precision_recall_curve(y, s)[0][-1]]
        # counts that follow the data: a counter, windows, epochs
        c = sr.PairCounter()
        for i in range(50):
            c.insert(i, int(y[i]), float(s[i]))
        c.update(3, score=0.5)
        out.append(c.counts.concordant)
        win = sr.SlidingPairCounter(40)
        for yi, si in zip(y, s):
            win.push(int(yi), float(si))
        out.append(win.counts.concordant)
        tw = sr.TimeSlidingPairCounter(30.0)
        for i, (yi, si) in enumerate(zip(y, s)):
            tw.push(int(yi), float(si), t=float(i))
        out.append(tw.counts.concordant)
        tr = sr.EpochTracker(y)
        tr.step(s)
        out.append(tr.step(t).concordant)
        # ranking
        q = np.repeat(np.arange(30), 10)
        rel = rng.integers(0, 3, n)
        out += [ranking.ndcg_at_k(q, rel, s), ranking.mrr_score(q, rel, s),
                ranking.err_score(q, rel, s), ranking.precision_at_k(q, rel, s, k=5)]
        # the monitor library, every shape
        for m in (Monitor(window=100), PairedMonitor(window=100),
                  SegmentedMonitor(factory=lambda: Monitor(window=50), max_segments=5)):
            for i in range(n):
                kw = {"challenger": float(t[i])} if isinstance(m, PairedMonitor) else {}
                if isinstance(m, SegmentedMonitor):
                    kw["segment"] = int(g[i])
                m.observe(i, score=float(s[i]), label=int(y[i]), **kw)
            out.append(m.report().events)
        assert all(isinstance(v, (int, float)) and not math.isnan(v) for v in out), out
        for name in BLOCKED:
            assert name not in sys.modules, name
        print(len(out))
    """)
    assert int(res.stdout) >= 25


@pytest.mark.parametrize("code, extra", [
    ("import streamrank.metrics", "river"),
    ("from streamrank.metrics import ROCAUC", "river"),
    ("from streamrank.ranking import NDCG", "river"),
    ("from streamrank.monitor import Monitor; Monitor(detector='adwin')", "river"),
    ("import streamrank.cli", "cli"),
    ("import streamrank.io.tables", "cli"),
    ("from streamrank.compare import read_performance_table; "
     "read_performance_table('x.csv', metrics=['auc'])", "cli"),
    ("from streamrank.plot import plot_curve; plot_curve('roc', [0, 1], [0, 1], 'x.png')",
     "plot"),
    ("import streamrank.dask", "dask"),
])
def test_a_missing_extra_names_it(code, extra):
    res = run_without_extras(f"""
        from streamrank import MissingExtraError
        try:
            {code}
        except MissingExtraError as exc:
            assert isinstance(exc, ImportError)
            print(exc)
        else:
            raise AssertionError("no MissingExtraError")
    """)
    assert f'pip install "streamrank[{extra}]"' in res.stdout, res.stdout
    assert "needs" in res.stdout


def test_the_command_without_its_extra_says_which_to_install():
    res = subprocess.run([sys.executable, "-c", prelude() + (
        "import sys; sys.argv = ['streamrank', 'demo']\n"
        "from streamrank.__main__ import main; main()")],
        capture_output=True, text=True, timeout=300)
    assert res.returncode == 1
    assert res.stderr.strip() == ('streamrank: the streamrank command needs click, which is '
                                  'not installed: pip install "streamrank[cli]"')


def test_a_command_without_its_extra_says_which_to_install():
    blocked = [name for name in BLOCKED if name not in ("click", "tqdm")]
    res = subprocess.run([sys.executable, "-c", prelude(blocked) + (
        "import sys; sys.argv = ['streamrank', 'demo', '--no-plot']\n"
        "from streamrank.__main__ import main; main()")],
        capture_output=True, text=True, timeout=300)
    assert res.returncode == 1, res.stderr
    assert res.stderr.strip() == ('Error: streamrank demo needs river, which is not '
                                  'installed: pip install "streamrank[river]"')
