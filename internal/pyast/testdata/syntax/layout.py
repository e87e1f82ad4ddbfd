x = 1 + \
    2
if x and \
   x:
    pass
y = (1 +
     2)
z = [
    1,
    2,
]
d = {
    'a': 1,
    # comment inside
    'b': 2,
}
def f(
    a,
    b,
):
    pass
if True:
    x = 1


    y = 2
        # comment at odd indentation
    z = 3
s = '''
multi
  line
'''
t = """\
"""
