//go:build !unix

package input

import "os"

// openNoWait opens path for reading (this system has no FIFOs to wait on).
func openNoWait(path string) (*os.File, error) { return os.Open(path) }
