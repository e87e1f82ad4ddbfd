from __future__ import annotations
import numbers
import typing


class Engine:
    def __init__(self, size, name: str | None = "default"):
        (self.size, self._cache) = size, {}

    def run(self, x: typing.Optional[int] = 0, *, flag: "bool" = True) -> str | None:
        return None


def compute(a, b: numbers.Number = 2, *args, **kw) -> typing.Union[float, None]:
    return None
