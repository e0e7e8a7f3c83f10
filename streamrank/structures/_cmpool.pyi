"""Types of the compiled `streamrank.structures._cmpool` (see _cmpool.pyx): its node pool
has no Python methods; `_cdominance` cimports it."""

class _MPool:
    def __init__(self, fan: int = ...) -> None: ...
