"""Every statement of Python 3.11, for the differential test."""
from __future__ import annotations
import os
import os.path as osp, sys
from . import sibling
from .. import (parent as p, other,)
from ...pkg.mod import *
from .mod import a as b, c

x = y = z = 1
a, *b = c, d = range(3)
[e, (f, *g)] = [1, (2, 3, 4)]
() = []
h: int
i: "str" = "s"
(j): int = 2
k.attr: list[int] = []
k[0]: dict = {}
x += 1; x -= 1; x *= 2; x /= 2; x //= 2; x %= 3; x **= 2; x @= m
x >>= 1; x <<= 1; x &= 1; x |= 1; x ^= 1
(x) += 1
x.y += 1
x[0] += 1
del x, y[0], z.w, (p1, [p2, p3])
del (q),
assert x, "message"
assert (x, y)
global gx, gy
pass; pass;

def f(a, b=1, /, c=2, *args: int, d, e=3, **kwargs) -> None:
    nonlocal_var = 1
    def inner():
        nonlocal nonlocal_var
        global gz
        return
    return a, *args

def g(a, /): ...
def h2(*, a): ...
def h3(a, *, b, c=1, **k,): ...
def h4(*args: *Ts): ...
def h5(a: int = 1, *, b: int = 2) -> "R": ...

@decorator
@decorator.attr(arg)
@(lambda f: f)
@x[0].y
class C(Base, metaclass=Meta, **extra):
    """doc"""
    attr = 1

    @property
    def p(self):
        return self._p

    async def am(self):
        async for item in aiter():
            await item
        async with lock as l, other:
            yield
        return [i async for i in gen() if await i]

class D: pass
class E(): pass

if a:
    pass
elif b:
    pass
elif c: pass
else:
    pass

for i in range(10):
    if i: continue
    break
else:
    pass

for i, (j, k) in pairs: pass
for *rest, last in rows: pass
for x.attr in y: pass
for x[0] in y: pass

while cond:
    pass
else:
    pass

try:
    pass
except ValueError:
    pass
except (TypeError, KeyError) as e:
    raise RuntimeError("x") from e
except:
    raise
else:
    pass
finally:
    pass

try:
    pass
finally:
    pass

try:
    pass
except* ValueError as eg:
    pass
except* (TypeError, OSError):
    pass

with open("f") as f, open("g") as g:
    pass
with (open("f") as f, open("g") as g,):
    pass
with (a, b):
    pass
with (a, b) as c:
    pass
with (a):
    pass
with (a)[0] as b:
    pass
with a as (b, c), d as [e, f]:
    pass
with (yield):
    pass

def gen():
    x = yield
    y = yield 1, 2
    z = yield from other()
    await_ = 1
    yield

async def coro():
    await x
    await (yield)
    return await y ** 2

lambda: 0
lambda x, /, y=1, *a, z, **k: 0
lambda *, a: a
lambda *a, **k: (a, k)
