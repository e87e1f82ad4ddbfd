# Expressions of Python 3.11.
a if b else c if d else e
lambda: (yield)
(x := 10)
[y := f(x), y**2]
if (n := len(a)) > 10: pass
while chunk := read(): pass
print(f"{(z := 3)}")
{(k := 1): v for v in range(3)}
a or b and not c
not not a
a < b <= c == d != e > f >= g in h not in i is j is not k
a | b ^ c & d << e >> f + g - h * i / j // k % l @ m
-a ** -b
~a
+a
-2 ** 2
2 ** -1
a.b.c.d
a(b)(c)[d][e:f:g].h
a[1:2, ::3, ...]
a[:]
a[::]
a[1:]
a[:2]
a[::-1]
a[*b]
a[*b, c]
a[b, *c]
a[b:=1]
a[()]
a[1,]
f(*args, **kwargs)
f(a, *b, c, *d, e=1, **f, g=2)
f(x for x in y)
f((x for x in y), z)
f(a=1)(b=2)
f(**a, **b)
f(*a, b=1, *c)
[]
[1, 2, *a]
[x for x in y]
[x for x in y if x if not x for z in x]
[(x, y) for x in a for y in b]
{}
{1: 2, **a, 3: 4}
{**a}
{k: v for k, v in items}
{1, 2, *a}
{x for x in y}
(x for x in y)
(x async for x in y)
()
(1,)
(1, 2)
((1), (2,))
(*a, b)
*a, b = c
print(*a, sep="")
...
Ellipsis
None, True, False
1, 1.0, 1j, 1.5J, 1e10, 1E-5, 1_000_000, 0x_FF, 0o17, 0b1010, 0XAB, 0O7, 0B1
00, 0_0, 0.0, 0e0, 00.5, 0777.5, 0777e1, 0777j, .5, 5., 1_0.2_5e-1_0
1if a else 2
0x1for x in y
"a" "b" 'c'
"""triple""" '''single triple'''
b"bytes" b'\x00\xff' rb"\d" Br'x'
u"unicode" U"x"
r"\n" R"\t"
"\n\t\\\'\"\a\b\f\v\r\0\12\123\x41\u00e9\U0001F600\N{BULLET}\N{greek small letter pi}\q"
"line\
continuation"
f"plain"
f"{x}" f"{y!r}" f"{z!s:>10}" f"{w!a}"
f"{x:{width}.{precision}}"
f"{x=}" f"{x = }" f"{x=!s}" f"{x=:>10}"
f"{{literal}}" f"a{{b{c}d}}e"
f"{x}" "plain" f"{y}"
"plain" f"{x}"
f"{'nested'}" f'{"nested"}'
f"""{
    x
}"""
F"{x}" rf"\d{x}" Rf"{x}\n" fR"{x}" fr'{x}'
f"{x:}"
f"{x!r:}"
f"{3.14:.2f}"
f"{a['b']}"
f"{a:{b}{c}}"
f"{x:>{w}}"
f"{'a' if b else 'c'}"
f"{x,}"
f"{x, y}"
f"{*a, b}"
f"{yield}" if 0 else 0
f"{(lambda: 1)}"
await_ = async_ = 1
