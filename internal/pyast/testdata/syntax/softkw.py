# Soft keywords used as names, and match statements.
match = 1
match(x)
print(match)
match.x = 2
match[0] = 3
match, case = 1, 2
match: int = 3
match * 2
match -1
-match
case = 4
_ = 5
type = int
type(x)
type.x
print(type)
def match(match, case, _, type): return match
class case: pass
import match
from match import case as type

match command.split():
    case [action]:
        pass
    case [action, obj]:
        pass
    case [Point(x=0, y=0)]:
        pass
    case ["go", direction] | ["move", direction]:
        pass
    case ("a" | "b") as letter:
        pass
    case [1, 2, *rest]:
        pass
    case [*_, last]:
        pass
    case (first, *others,):
        pass
    case ():
        pass
    case []:
        pass
    case {"x": x, "y": y, **rest}:
        pass
    case {1: _, -2: _, 1.5: _, 2j: _, 1 + 2j: _, -1 - 2j: _, None: _, True: _, "s" "t": _, a.b: _}:
        pass
    case {}:
        pass
    case {**rest}:
        pass
    case Point(1, 2, x=3, y=4):
        pass
    case Point():
        pass
    case a.b.C(d, e=f):
        pass
    case 0 | -1 | 1.5 | -2.5 | 3j | -3j | 1 + 2j | 1 - 2j | -1 + 2j:
        pass
    case "str" | b"bytes" | None | True | False:
        pass
    case Color.RED:
        pass
    case x if x > 0:
        pass
    case _:
        pass

match x, y:
    case a, b: pass

match *a, b:
    case _: pass

match (x):
    case 1: pass

match [x]:
    case 1: pass

match -x:
    case 1: pass

match {x: y}:
    case 1: pass

match x,:
    case (1): pass

match f(x) if y else z:
    case _ as w: pass

match(x)
match[x]
