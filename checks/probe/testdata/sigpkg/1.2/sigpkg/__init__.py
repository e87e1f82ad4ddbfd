from typing import Optional
import numbers


class Engine:
    def __init__(self, size, name: Optional[str] = None):
        self.size = size
        self._cache = {}

    def run(self, x: Optional[str] = None, *, flag: bool = False) -> Optional[str]:
        return None


def compute(a, b: "numbers.Number" = 1, *args, **kw) -> Optional[float]:
    return None
