import numba

def broken(:
    pass
