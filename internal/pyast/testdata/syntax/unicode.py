# Non-ASCII identifiers and text.
café = "crème brûlée"
π = 3.14159
变量 = π * 2
ℌ = 1
ﬁ = 2
def 関数(引数): return 引数
class Ωmega: pass
s = "😀 \N{GRINNING FACE} \u00e9 \U0001F600"
b = "\ud800"  # a lone surrogate
x = 1  # comment with ünïcödé
