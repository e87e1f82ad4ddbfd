// Command elfgen writes a synthetic shared object (see internal/elfgen),
// for checks/symbols/bench/compare.sh:
//
//	go run ./internal/elfgen/cmd/elfgen -o /tmp/big.so -size 1073741824 -functions 50000 [-shift 64] [-differ 100]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/pinbot-dev/pinbot/internal/elfgen"
)

func main() {
	out := flag.String("o", "", "output file")
	size := flag.Int64("size", 0, "file size in bytes (the bulk section is a hole)")
	n := flag.Int("functions", 50000, "exported functions")
	shift := flag.Uint64("shift", 0, "move the code and constants by this many bytes (a multiple of 16)")
	differ := flag.Int("differ", 0, "change the constant of every n-th function")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "elfgen: -o is required")
		os.Exit(2)
	}
	if err := elfgen.Write(*out, elfgen.Spec{Functions: *n, Size: *size, Shift: *shift, Differ: *differ}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
