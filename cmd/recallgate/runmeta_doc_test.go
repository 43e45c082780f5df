package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
)

// TestRunMetadataLineDocumented: the first line `retrieve --out` writes
// for the demo's head is the line docs/set.md shows under "The run's
// metadata line", and the page's table names every key of gate.RunMeta
// (a script reading the run learns there what to skip).
func TestRunMetadataLineDocumented(t *testing.T) {
	blocks := docSection(t, "### The run's metadata line")
	shown := blockOf(t, blocks, "json")
	t.Chdir("../..")
	out := filepath.Join(t.TempDir(), "head.jsonl")
	if code, _, errs := rg(t, "retrieve", "--config", "frozen-set/recallgate.toml", "--out", out); code != 0 {
		t.Fatalf("retrieve: exit %d\n%s", code, errs)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(data), "\n")
	if first != strings.TrimSpace(shown.Text) {
		t.Errorf("%s:%d: the metadata line shown is not what retrieve --out writes first:\nshown: %s\nwrote: %s", shown.Path, shown.Line, strings.TrimSpace(shown.Text), first)
	}
	var m map[string]map[string]string
	if err := json.Unmarshal([]byte(first), &m); err != nil || len(m) != 1 || m["recallgate"] == nil {
		t.Errorf("the first line is not {\"recallgate\":{…}}: %v %s", err, first)
	}
	page, err := os.ReadFile(shown.Path)
	if err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\|").FindAllStringSubmatch(string(page[strings.Index(string(page), "### The run's metadata line"):]), -1)
	documented := map[string]bool{}
	for _, r := range rows {
		documented[r[1]] = true
	}
	rt := reflect.TypeOf(gate.RunMeta{})
	for i := range rt.NumField() {
		key, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		if !documented[key] {
			t.Errorf("%s: the metadata line's key %q is not in the table under \"The run's metadata line\"", shown.Path, key)
		}
	}
}
