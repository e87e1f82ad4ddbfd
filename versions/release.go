package versions

import (
	"slices"
	"strconv"
	"strings"
)

// wildcardBase returns the release a prefix clause starts at ("0.61" for
// "0.61.*", "1" for Poetry's "1.*.*"), or "" when v has no wildcard.
func wildcardBase(v string) string {
	if !strings.HasSuffix(v, "*") {
		return ""
	}
	for strings.HasSuffix(v, "*") {
		v = strings.TrimSuffix(strings.TrimSuffix(v, "*"), ".")
	}
	return v
}

// splitRelease splits a version into what precedes its release numbers (a "v"
// and an epoch such as "1!") and the numbers, ignoring what follows them
// (pre-, post-, dev-release and local parts). It works for PEP 440, conda and
// semantic versions alike.
func splitRelease(v string) (prefix string, nums []int, ok bool) {
	i := 0
	if i < len(v) && (v[i] == 'v' || v[i] == 'V') {
		i++
	}
	j := i
	for j < len(v) && isDigit(v[j]) {
		j++
	}
	if j > i && j < len(v) && v[j] == '!' {
		i = j + 1
	}
	prefix = v[:i]
	k := i
	for k < len(v) && (isDigit(v[k]) || v[k] == '.') {
		k++
	}
	rel := strings.TrimRight(v[i:k], ".")
	if rel == "" {
		return "", nil, false
	}
	for _, part := range strings.Split(rel, ".") {
		n, err := strconv.Atoi(part)
		if err != nil {
			return "", nil, false
		}
		nums = append(nums, n)
	}
	return prefix, nums, true
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

func joinRelease(prefix string, nums []int) string {
	parts := make([]string, len(nums))
	for i, n := range nums {
		parts[i] = strconv.Itoa(n)
	}
	return prefix + strings.Join(parts, ".")
}

// Precision returns the number of release components of v: 2 for "0.62",
// 3 for "0.62.1rc1", 0 when v does not start with a release number.
func Precision(v string) int {
	_, nums, _ := splitRelease(v)
	return len(nums)
}

// Truncate returns the first n release components of v, padded with zeros:
// Truncate("3.1.0", 2) is "3.1", Truncate("0.67", 3) is "0.67.0".
func Truncate(v string, n int) (string, bool) {
	prefix, nums, ok := splitRelease(v)
	if !ok || n < 1 {
		return "", false
	}
	for len(nums) < n {
		nums = append(nums, 0)
	}
	return joinRelease(prefix, nums[:n]), true
}

// NextRelease returns the release boundary after v at precision n: v's first n
// release components with the last one incremented. NextRelease("0.62.1", 2) is
// "0.63", NextRelease("3.1.0", 1) is "4".
func NextRelease(v string, n int) (string, bool) {
	prefix, nums, ok := splitRelease(v)
	if !ok || n < 1 {
		return "", false
	}
	for len(nums) < n {
		nums = append(nums, 0)
	}
	nums = slices.Clone(nums[:n])
	nums[n-1]++
	return joinRelease(prefix, nums), true
}

// CaretUpper returns the exclusive upper bound of Poetry's caret requirement
// ^v: the next release that changes the leftmost non-zero component among those
// written. ^1.2.3 is <2, ^0.2.3 <0.3, ^0.0.3 <0.0.4, ^0.0 <0.1 and ^0 <1.
func CaretUpper(v string) (string, bool) {
	_, nums, ok := splitRelease(v)
	if !ok {
		return "", false
	}
	switch {
	case nums[0] != 0:
		return NextRelease(v, 1)
	case len(nums) >= 2 && nums[1] != 0:
		return NextRelease(v, 2)
	}
	return NextRelease(v, min(len(nums), 3))
}

// TildeUpper returns the exclusive upper bound of Poetry's tilde requirement ~v:
// ~1.2.3 and ~1.2 are <1.3, ~1 is <2.
func TildeUpper(v string) (string, bool) {
	if Precision(v) == 1 {
		return NextRelease(v, 1)
	}
	return NextRelease(v, 2)
}
