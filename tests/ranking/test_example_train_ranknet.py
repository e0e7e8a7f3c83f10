"""examples/train_ranknet.py runs, learns, and stops by the pair-count rule (small sizes)."""

import importlib.util

import numpy as np
from paths import ROOT

EXAMPLE = ROOT / "examples" / "train_ranknet.py"


def load():
    spec = importlib.util.spec_from_file_location("train_ranknet", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_train_ranknet_small(capsys):
    mod = load()
    history, w = mod.train(n_train=40, n_valid=20, epochs=60, patience=3, verbose=True)
    out = capsys.readouterr().out
    assert "NDCG@10" in out and "(D+T)/P" in out
    assert len(history) >= 2 and np.isfinite(w).all()
    first, best = history[0], min(history, key=lambda m: m["ratio"])
    assert best["ratio"] <= first["ratio"]
    assert best["ndcg10"] > 0.5
    for m in history:
        assert 0 <= m["D"] <= m["D+T"] <= m["P"]
    if len(history) < 60:   # stopped early: no improvement over the last `patience` epochs
        assert "stop:" in out
        assert min(m["ratio"] for m in history[-3:]) >= best["ratio"]


def test_train_ranknet_main_runs(capsys):
    load().main()
    assert "held-out pair errors" in capsys.readouterr().out
