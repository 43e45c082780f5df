package registrydocs

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var writeDocs = flag.Bool("write-docs", false, "rewrite docs/rules.md's generated part (go generate ./gate)")

// TestRegistryDocs: docs/rules.md's part between the markers is what the
// metric and rule registries generate; a registry change without `go
// generate ./gate` fails here.
func TestRegistryDocs(t *testing.T) {
	const path = "../../docs/rules.md"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i, j := strings.Index(doc, Begin), strings.Index(doc, End)
	if i < 0 || j < i {
		t.Fatalf("%s: no generated part between %q and %q", path, Begin, End)
	}
	want := Begin + "\n\n" + Tables() + "\n" + End
	if doc[i:j+len(End)] == want {
		return
	}
	if *writeDocs {
		if err := os.WriteFile(path, []byte(doc[:i]+want+doc[j+len(End):]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s is stale: its generated part differs from the registries; run go generate ./gate", path)
}
