//go:build linux

package main

import "syscall"

// harden makes pinbot non-dumpable (prctl PR_SET_DUMPABLE 0): its
// /proc/PID/environ, mem and maps become root's, so a process running as the
// same user (a probed release's import, a repository's run: snippet) cannot
// read the tokens in pinbot's environment or memory. os.Unsetenv would not
// do: /proc/PID/environ shows the environment the process started with.
// Children are dumpable again after exec, which protects nothing of pinbot's
// and leaves them debuggable. Root, or a user with passwordless sudo as on
// GitHub-hosted runners, still reads everything: there the secret must not be
// on the machine while release code runs (docs/security.md).
func harden() error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_DUMPABLE, 0, 0); errno != 0 {
		return errno
	}
	return nil
}
