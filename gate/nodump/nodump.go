// Package nodump closes the process to other processes of the same user.
//
// On Linux a process is "dumpable" by default: any process running as the
// same user may read its /proc/<pid>/environ, open its /proc/<pid>/fd/*
// and read its memory. recallgate holds the job's token in its environment
// and starts programs a pull request wrote (a command retriever), which run
// as that same user: made non-dumpable, recallgate's /proc files belong to
// root and such a program can neither read the token from them nor write to
// recallgate's stdout through /proc/<pid>/fd/1. A program recallgate
// starts is dumpable again after its execve, so this closes only
// recallgate itself. Root with CAP_SYS_PTRACE can still read it.
//
// The package imports nothing of recallgate's (a leaf); on other systems
// Set does nothing.
package nodump

// Set makes the calling process non-dumpable (Linux prctl
// PR_SET_DUMPABLE 0), for all its threads. Call it before starting any
// child process. It is a no-op where the system has no such setting.
func Set() error { return set() }

// Dumpable reports whether the process is dumpable (Linux prctl
// PR_GET_DUMPABLE); elsewhere it reports false.
func Dumpable() (bool, error) { return dumpable() }
