"""Types of the compiled `streamrank.structures._cpairwindow` (see _cpairwindow.pyx)."""

from typing import Any

from ..engine import PairEngine
from ._cwindow import RowWindow

_Num = int | float

SCALAR_FLUSH: int

def sync(window: RowWindow, engine: PairEngine, caller: str,
         recount: bool = True) -> PairEngine: ...

class WindowCore:
    _win: RowWindow
    _engine: PairEngine
    def __init__(self, engine: PairEngine, win: RowWindow) -> None: ...
    def sync(self, caller: str) -> PairEngine: ...
    def _state(self) -> tuple[Any, ...]: ...
    def __reduce__(self) -> tuple[Any, ...]: ...
    def __setstate__(self, state: object) -> None: ...

class SlidingCore(WindowCore):
    window_size: int
    def push(self, y: _Num, s: _Num, w: _Num = 1.0) -> None: ...

class TimeCore(WindowCore):
    period: float
    def push(self, y: _Num, s: _Num, w: _Num = 1.0, *, t: _Num) -> None: ...

class RollingCore(WindowCore):
    window_size: int
    pos_val: Any
    def update(self, y_true: Any, y_pred: Any, w: _Num = 1.0) -> None: ...
    def revert(self, y_true: Any, y_pred: Any, w: _Num = 1.0) -> None: ...
    def get(self) -> float: ...
