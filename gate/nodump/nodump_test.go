package nodump

import (
	"runtime"
	"testing"
)

// TestSet: after Set the process reports itself non-dumpable (Linux).
func TestSet(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("PR_SET_DUMPABLE is Linux's")
	}
	if err := Set(); err != nil {
		t.Fatal(err)
	}
	d, err := Dumpable()
	if err != nil {
		t.Fatal(err)
	}
	if d {
		t.Error("still dumpable after Set")
	}
}
