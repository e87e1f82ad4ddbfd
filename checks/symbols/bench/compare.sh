#!/bin/sh
# compare.sh times the nm | c++filt pipeline against `pinbot scan` over the
# same shared objects, and prints
# median wall times, peak RSS and the ratios.
#
# Usage: checks/symbols/bench/compare.sh [FILE...]
# With no files it takes the regular .so files of the Debian packages below
# (install them with apt-get install -y binutils libprotobuf32 libgrpc++1.51
# python3-protobuf python3-onnx python3-numba python3-llvmlite libllvm14).
# RUNS sets the number of runs per command (default 7). LARGE=1 also times
# `pinbot scan` of a generated 1 GiB library against another (50,000
# clashing functions, internal/elfgen; sparse files in the temporary
# directory), for its peak RSS.
set -eu

cd "$(dirname "$0")/../../.."
runs=${RUNS:-7}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ $# -gt 0 ]; then
	for f in "$@"; do echo "$f"; done > "$tmp/files"
else
	for p in libprotobuf32 libprotobuf-lite32 libprotoc32 libgrpc++1.51 libgrpc29 libonnx1 \
		python3-protobuf python3-onnx python3-numba python3-llvmlite libllvm14; do
		dpkg -L "$p" 2>/dev/null | grep -E '\.so(\.[0-9.]+)?$' | while read -r f; do
			if [ -f "$f" ] && [ ! -L "$f" ]; then echo "$f"; fi
		done
	done | sort -u > "$tmp/files"
fi
n=$(wc -l < "$tmp/files")
if [ "$n" -eq 0 ]; then
	echo "compare.sh: no shared objects to scan" >&2
	exit 1
fi
go build -o "$tmp/pinbot" ./cmd/pinbot
files=$(tr '\n' ' ' < "$tmp/files")
if [ "${LARGE:-0}" = 1 ]; then
	go run ./internal/elfgen/cmd/elfgen -o "$tmp/liblarge-a.so" -size 1073741824 -functions 50000
	go run ./internal/elfgen/cmd/elfgen -o "$tmp/liblarge-b.so" -size 1073741824 -functions 50000 -shift 64 -differ 100
fi

# The commands, run in turn $runs times (interleaved, so that other load on
# the machine falls on all of them alike).
cat > "$tmp/commands" <<EOC
nm-one-process	nm -D --defined-only $files | c++filt
nm-per-file	for f in $files; do nm -D --defined-only "\$f"; done | c++filt
pinbot-scan-size	$tmp/pinbot scan --size-only --preset tensorflow-protobuf $files
pinbot-scan-bodies	$tmp/pinbot scan --preset tensorflow-protobuf $files
EOC
if [ "${LARGE:-0}" = 1 ]; then
	printf 'pinbot-scan-1GiB\t%s\n' "$tmp/pinbot scan $tmp/liblarge-a.so --against $tmp/liblarge-b.so" >> "$tmp/commands"
fi

cat > "$tmp/timeit.py" <<'EOP'
import os, subprocess, sys, time
t0 = time.perf_counter()
p = subprocess.Popen(["sh", "-c", sys.argv[1]], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_, _, ru = os.wait4(p.pid, 0)
wall = time.perf_counter() - t0
print(f"{wall:.4f} {ru.ru_utime + ru.ru_stime:.4f} {ru.ru_maxrss}")
EOP

load0=$(cut -d' ' -f1-3 /proc/loadavg)
i=0
while [ "$i" -lt "$runs" ]; do
	while IFS='	' read -r name cmd; do
		# wall, cpu (user+system, less sensitive to other load), peak RSS in KB,
		# from wait4 as time(1) reads them, but to the microsecond: time(1)
		# rounds to 10 ms, a tenth of a body scan.
		python3 "$tmp/timeit.py" "$cmd" >> "$tmp/times.$name"
	done < "$tmp/commands"
	i=$((i + 1))
done

# median FILE FIELD: the median of column FIELD of FILE.
median() {
	cut -d' ' -f"$2" "$1" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}
: > "$tmp/results"
while IFS='	' read -r name cmd; do
	echo "$name $(median "$tmp/times.$name" 1) $(median "$tmp/times.$name" 2) $(median "$tmp/times.$name" 3)" >> "$tmp/results"
done < "$tmp/commands"

echo "$n shared objects, $(xargs du -cb < "$tmp/files" | tail -1 | cut -f1) bytes; median of $runs runs; $(nproc) CPUs, load $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
awk '
	{ name[NR] = $1; wall[NR] = $2; cpu[NR] = $3; rss[NR] = $4; w[$1] = $2; c[$1] = $3 }
	END {
		printf "%-18s %9s %9s %14s\n", "command", "wall (s)", "cpu (s)", "peak RSS (MB)"
		for (i = 1; i <= NR; i++) printf "%-18s %9.3f %9.3f %14.1f\n", name[i], wall[i], cpu[i], rss[i] / 1024
		printf "\nnm | c++filt time / pinbot scan time:\n"
		split("pinbot-scan-size pinbot-scan-bodies", s, " ")
		split("nm-one-process nm-per-file", n, " ")
		for (i = 1; i <= 2; i++) for (j = 1; j <= 2; j++)
			if (w[s[i]] > 0 && c[s[i]] > 0)
				printf "  %-15s vs %-15s wall %5.1fx  cpu %5.1fx\n", n[j], s[i], w[n[j]] / w[s[i]], c[n[j]] / c[s[i]]
	}' "$tmp/results"
