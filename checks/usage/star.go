package usage

import "strings"

// Names a module's star imports bind: `from mlir.ir import *` binds every
// public name of mlir.ir, which the file then uses as Context, Module. A
// name the file does not bind, that is not one of Python's builtins, is
// the star-imported module's, when each of the file's star imports is of a
// watched package's module (a star import of any other module could have
// bound it too, and then it is not followed).

// lookup returns what name stands for in sc, star imports included.
func (w *walker) lookup(name string, sc *scope) binding {
	b, bound := sc.lookup(name)
	if bound || len(w.stars) == 0 || w.foreignStar || pyBuiltins[name] || strings.HasPrefix(name, "_") {
		return b
	}
	for _, m := range w.stars {
		b = union(b, binding{{qual: m + "." + name, module: m}})
	}
	return b
}

// star records a star import of module in the module scope sc.
func (w *walker) star(sc *scope, module string, watched bool) {
	if !watched {
		w.foreignStar = true
		return
	}
	sc.stars = true
	for _, m := range w.stars {
		if m == module {
			return
		}
	}
	w.stars = append(w.stars, module)
}

// pyBuiltins are the names of Python 3.13's builtins module, and the
// module attributes every module has.
var pyBuiltins = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(`ArithmeticError AssertionError AttributeError BaseException
		BaseExceptionGroup BlockingIOError BrokenPipeError BufferError BytesWarning ChildProcessError
		ConnectionAbortedError ConnectionError ConnectionRefusedError ConnectionResetError
		DeprecationWarning EOFError Ellipsis EncodingWarning EnvironmentError Exception ExceptionGroup
		False FileExistsError FileNotFoundError FloatingPointError FutureWarning GeneratorExit IOError
		ImportError ImportWarning IndentationError IndexError InterruptedError IsADirectoryError
		KeyError KeyboardInterrupt LookupError MemoryError ModuleNotFoundError NameError None
		NotADirectoryError NotImplemented NotImplementedError OSError OverflowError
		PendingDeprecationWarning PermissionError ProcessLookupError PythonFinalizationError
		RecursionError ReferenceError ResourceWarning RuntimeError RuntimeWarning StopAsyncIteration
		StopIteration SyntaxError SyntaxWarning SystemError SystemExit TabError TimeoutError True
		TypeError UnboundLocalError UnicodeDecodeError UnicodeEncodeError UnicodeError
		UnicodeTranslateError UnicodeWarning UserWarning ValueError Warning ZeroDivisionError abs
		aiter all anext any ascii bin bool breakpoint bytearray bytes callable chr classmethod compile
		complex copyright credits delattr dict dir divmod enumerate eval exec exit filter float format
		frozenset getattr globals hasattr hash help hex id input int isinstance issubclass iter len
		license list locals map max memoryview min next object oct open ord pow print property quit
		range repr reversed round set setattr slice sorted staticmethod str sum super tuple type vars
		zip`) {
		m[n] = true
	}
	return m
}()
