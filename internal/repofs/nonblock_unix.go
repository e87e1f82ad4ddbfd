//go:build unix

package repofs

import "syscall"

// openNonblock keeps an open from waiting: a named pipe swapped in after the
// check opens at once (and is then refused) instead of blocking for a writer.
const openNonblock = syscall.O_NONBLOCK
