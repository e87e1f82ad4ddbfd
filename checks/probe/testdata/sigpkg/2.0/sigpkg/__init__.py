class Engine:
    def __init__(self, size, *, name=None):
        self._size = size
        self._cache = {}

    def run(self, value=None, flag=False):
        return None


def compute(a, b, *args, **kw):
    return None
