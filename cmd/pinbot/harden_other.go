//go:build !linux

package main

// harden does nothing outside Linux: other systems have no /proc/PID/environ
// to protect, or protect it otherwise.
func harden() error { return nil }
