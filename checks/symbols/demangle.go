package symbols

import (
	"runtime"
	"strings"
	"sync"

	"github.com/ianlancetaylor/demangle"
)

// demangleName returns the demangled form of a C++ (Itanium ABI) name, or the
// name itself if it is not mangled or does not demangle. Demangled names are
// for display and for matching demangled globs; symbols are keyed by their
// mangled names.
func demangleName(name string) string {
	if !strings.HasPrefix(name, "_Z") {
		return name
	}
	d, err := demangle.ToString(name, demangle.NoRust)
	if err != nil {
		return name
	}
	return d
}

// demangleShort is demangleName without parameters and return type:
// "google::protobuf::io::Printer::Print<char [5]>".
func demangleShort(name string) string {
	if !strings.HasPrefix(name, "_Z") {
		return name
	}
	d, err := demangle.ToString(name, demangle.NoParams, demangle.NoRust)
	if err != nil {
		return name
	}
	return d
}

// demangleAll demangles names with up to workers goroutines (default
// GOMAXPROCS); the result is parallel to names.
func demangleAll(names []string, workers int) []string {
	out := make([]string, len(names))
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	const chunk = 256
	workers = max(1, min(workers, (len(names)+chunk-1)/chunk))
	if workers == 1 {
		for i, n := range names {
			out[i] = demangleName(n)
		}
		return out
	}
	var next sync.Mutex
	pos := 0
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				next.Lock()
				lo := pos
				pos += chunk
				next.Unlock()
				if lo >= len(names) {
					return
				}
				for i := lo; i < min(lo+chunk, len(names)); i++ {
					out[i] = demangleName(names[i])
				}
			}
		})
	}
	wg.Wait()
	return out
}
