"""The package's layout is its architecture: layers that import only downward, and modules
that each own their types' fields.

Layers, lowest first (a module may import from a lower layer or from its own package):

0. the definitions: `exceptions`, `_extras` (the optional dependencies), `_typing` (type
   aliases), `_validation` (every argument check), `counts`, `_snapshot` (the versioned
   snapshot and pickle formats);
1. `io` (the file readers) and `batch` (the numpy batch API and its kernels);
2. the compiled `structures` and their Python face, `engine`;
3. the incremental API: `counter`, `windows`, `epochs`;
4. `metrics` (River adapters) and `ranking`;
5. the applications: `monitor`, `dask`, `compare`;
6. `plot` (every figure);
7. `cli` (parsing and printing);
8. `__main__` (the script: the command line, or the extra it needs).

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
    "exceptions": 0.0, "_extras": 0.05, "_typing": 0.0, "_validation": 0.1, "counts": 0.2, "intervals": 0.3,
    "_snapshot": 0.4,
    "io": 1, "batch": 1,
    "structures": 2.0, "_engine_batch": 2.05, "engine": 2.1,
    "_engine_ci": 3.05, "counter": 3.1, "windows": 3.1, "epochs": 3.1,
    "metrics": 4, "ranking": 4,
    "monitor": 5, "dask": 5, "compare": 5,
    "plot": 6,
    "cli": 7,
    "__main__": 8,
}
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


#: The private methods that are protocols between the package's types, called across
#: objects: the invariant check every structure has (``_check``), a monitor's node of a
#: snapshot (``_write``, ``_read``), a report as a snapshot row (``_to_row``,
#: ``_from_row``) and a window's part in a wrapper's compiled runs (``_run_parts``,
#: ``_took``).
PROTOCOLS = {"_check", "_write", "_read", "_to_row", "_from_row", "_run_parts", "_took"}
#: Modules allowed to touch another library's private fields, and why.
FOREIGN_STATE = {
    "monitor/detectors.py": "River's ADWIN and Page-Hinkley have no public state: "
                            "detector_state and restore_state read and set their fields, "
                            "checked against a fresh detector of the same River on load",
}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _foreign_fields(path: Path) -> list[str]:
    """``line: expression`` of each private attribute that ``path`` touches on an object
    other than its own: not ``self`` or ``cls``, not an instance its class method builds
    (``m = cls(...)``), not a class of the module, not ``super()``, and not a call of a
    protocol (`PROTOCOLS`)."""
    tree = ast.parse(path.read_text())
    classes = {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
    found = set()
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        own = {"self", "cls"} | classes
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) \
                    and isinstance(node.value.func, ast.Name) and node.value.func.id == "cls":
                own |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        called = {id(n.func) for n in ast.walk(fn) if isinstance(n, ast.Call)}
        for node in ast.walk(fn):
            if not (isinstance(node, ast.Attribute) and _private(node.attr)):
                continue
            base = node.value
            if isinstance(base, ast.Name) and base.id in own \
                    or isinstance(base, ast.Call) and isinstance(base.func, ast.Name) \
                    and base.func.id == "super" \
                    or id(node) in called and node.attr in PROTOCOLS:
                continue
            found.add(f"{node.lineno}: {ast.unparse(node)}")
    return sorted(found)


@pytest.mark.parametrize("path", [p for p in _modules() if p.suffix == ".py"],
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_a_module_touches_no_other_objects_private_fields(path):
    """Cohesion: a module owns its types' fields. It reads and writes the private fields
    of its own objects only; what other types need of them is a public method or
    property, or one of the few protocols (`PROTOCOLS`). (Python modules: the compiled
    ones are the structures' own, one type or one mechanism each.)"""
    rel = str(path.relative_to(PACKAGE))
    found = _foreign_fields(path)
    if rel in FOREIGN_STATE:
        assert found, f"{rel} no longer needs its exception: {FOREIGN_STATE[rel]}"
        return
    assert not found, f"{rel} touches other objects' private fields:\n" + "\n".join(found)


def test_the_rule_finds_what_it_forbids(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("class A:\n"
                   "    def f(self, other):\n"
                   "        self._x = other._y\n"             # a read of another's field
                   "        other._check()\n"                  # a protocol: fine
                   "        other._z = 1\n"                    # a write of another's field
                   "    @classmethod\n"
                   "    def g(cls):\n"
                   "        m = cls()\n"
                   "        m._x = A._y = super()._w\n"        # its own new instance
                   "        return m._helper(1)\n")
    assert _foreign_fields(src) == ["3: other._y", "5: other._z"]


def test_the_public_face_is_thin():
    text = (PACKAGE / "__init__.py").read_text()
    tree = ast.parse(text)
    defs = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    assert defs == ["__getattr__"], defs
