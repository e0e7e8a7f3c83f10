"""The package's layout is its architecture: layers that import only downward, small files.

Layers, lowest first (a module may import from a lower layer or from its own package):

0. the definitions: `exceptions`, `_typing` (type aliases), `_validation` (every argument
   check), `counts`, `_snapshot` (the versioned snapshot and pickle formats);
1. `io` (the file readers) and `batch` (the numpy batch API and its kernels);
2. the compiled `structures` and their Python face, `engine`;
3. the incremental API: `counter`, `windows`, `epochs`;
4. `metrics` (River adapters) and `ranking`;
5. the applications: `monitor`, `dask`, `compare`;
6. `plot` (every figure);
7. `cli` (parsing and printing).

Imports inside functions count as well: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "streamrank"

#: Each unit's layer; the decimals order the units inside a layer (``counts`` uses
#: ``exceptions``, ``engine`` the ``structures``, the counters ``_engine_ci``). Units of one
#: rank (``io`` and ``batch``; ``metrics`` and ``ranking``; the applications) never import
#: each other.
LAYERS = {
    "exceptions": 0.0, "_typing": 0.0, "_validation": 0.1, "counts": 0.2, "intervals": 0.3,
    "_snapshot": 0.4,
    "io": 1, "batch": 1,
    "structures": 2.0, "_engine_batch": 2.05, "engine": 2.1,
    "_engine_ci": 3.05, "counter": 3.1, "windows": 3.1, "epochs": 3.1,
    "metrics": 4, "ranking": 4,
    "monitor": 5, "dask": 5, "compare": 5,
    "plot": 6,
    "cli": 7,
}
MAX_LINES = 600
_CIMPORT = re.compile(r"^\s*(?:from\s+(\.+[\w.]*|streamrank[\w.]*)\s+c?import|cimport\s+(streamrank[\w.]*))",
                      re.M)


def _modules():
    for path in sorted(PACKAGE.rglob("*")):
        if path.suffix in (".py", ".pyx", ".pxi", ".pxd") and "__pycache__" not in path.parts:
            yield path


def _top(path: Path) -> str:
    """The top-level unit (module or subpackage) of streamrank that ``path`` belongs to."""
    rel = path.relative_to(PACKAGE)
    return rel.parts[0].split(".")[0]


def _resolve(path: Path, dots: str, name: str) -> str | None:
    """The top-level unit a relative import ``from <dots><name> import`` in ``path`` names
    (``None`` for ``from . import x`` at the top of the package, resolved per name)."""
    rel = path.relative_to(PACKAGE)
    package = list(rel.parts[:-1])
    up = len(dots) - 1
    base = package[: len(package) - up] if up else package
    parts = base + ([p for p in name.split(".") if p] if name else [])
    return parts[0] if parts else None


def _imports(path: Path):
    """``(line, top-level unit)`` of every streamrank import in ``path``."""
    text = path.read_text()
    if path.suffix == ".py":
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    top = _resolve(path, "." * node.level, node.module or "")
                    if top is None:
                        for alias in node.names:
                            yield node.lineno, alias.name
                    else:
                        yield node.lineno, top
                elif node.module and node.module.split(".")[0] == "streamrank":
                    parts = node.module.split(".")
                    if len(parts) > 1:
                        yield node.lineno, parts[1]
                    else:
                        for alias in node.names:
                            yield node.lineno, alias.name
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    parts = alias.name.split(".")
                    if parts[0] == "streamrank" and len(parts) > 1:
                        yield node.lineno, parts[1]
    else:
        for m in _CIMPORT.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            target = m.group(1) or m.group(2)
            if target.startswith("."):
                dots = target[: len(target) - len(target.lstrip("."))]
                top = _resolve(path, dots, target.lstrip("."))
            else:
                parts = target.split(".")
                top = parts[1] if len(parts) > 1 else None
            if top is not None:
                yield line, top


def _layer(top: str) -> int | None:
    return LAYERS.get(top)


def test_every_module_has_a_layer():
    tops = {_top(p) for p in _modules()} - {"__init__", "py"}
    assert tops <= set(LAYERS), sorted(tops - set(LAYERS))


def test_imports_go_only_downward():
    wrong = []
    for path in _modules():
        own = _top(path)
        if own == "__init__":
            continue                   # the public face imports from every layer
        for line, top in _imports(path):
            if top == own or top not in LAYERS:
                continue
            if LAYERS[top] >= LAYERS[own]:
                wrong.append(f"{path.relative_to(PACKAGE)}:{line} imports {top} "
                             f"(layer {LAYERS[top]} from layer {LAYERS[own]})")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("path", list(_modules()), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_files_are_small(path):
    n = len(path.read_text().splitlines())
    assert n <= MAX_LINES, f"{path.relative_to(PACKAGE)} has {n} lines (at most {MAX_LINES})"


def test_the_public_face_is_thin():
    text = (PACKAGE / "__init__.py").read_text()
    tree = ast.parse(text)
    defs = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    assert defs == ["__getattr__"], defs
