import numba
numba.this_is_excluded
