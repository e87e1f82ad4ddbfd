// Package bench holds pinbot's end-to-end speed benchmarks, which measure
// whole runs over many files rather than one package's functions. The
// figures docs/performance.md gives (and the README's Performance section
// sums up) come from here:
//
//	go test ./bench -run '^$' -bench BenchmarkDiscoverAndPlan -benchtime 10x -count 5 -benchmem
//	go test ./bench -run '^$' -bench BenchmarkUsage -benchtime 5x -count 5 -benchmem
package bench
