#!/bin/sh
# pgo.sh regenerates cmd/pinbot/default.pgo, the CPU profile the Go
# toolchain optimises the pinbot binary with (profile-guided optimisation:
# go build uses a main package's default.pgo by itself). The profile is of
# BenchmarkScanDebian, the symbol scan over the Debian libraries that
# compare.sh times: the scan is the part of pinbot whose speed is a target
# (docs/performance.md); the rest waits on the network. Run it after changes
# to the scan, with the Debian packages installed (see compare.sh), and
# commit the profile.
set -eu

cd "$(dirname "$0")/../../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -run '^$' -bench '^BenchmarkScanDebian$' -benchtime 40x -cpuprofile "$tmp/cpu.pprof" -o "$tmp/symbols.test" ./checks/symbols/ >&2
if ! go tool pprof -top "$tmp/symbols.test" "$tmp/cpu.pprof" 2>/dev/null | grep -q 'checks/symbols'; then
	echo "pgo.sh: the benchmark did not run (are the Debian packages installed?)" >&2
	exit 1
fi
cp "$tmp/cpu.pprof" cmd/pinbot/default.pgo
echo "wrote cmd/pinbot/default.pgo" >&2
