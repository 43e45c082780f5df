//go:build !linux

package nodump

func set() error { return nil }

func dumpable() (bool, error) { return false, nil }
