package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestUnjudgedModeReadBack: the JSON report records the reading the rules
// used (unjudged.mode) and the strict reader refuses one that is none.
func TestUnjudgedModeReadBack(t *testing.T) {
	m := mapOf(t, render(t, judgedComparison(t), JSON))
	u := m["unjudged"].(map[string]any)
	if u["mode"] != "range" {
		t.Fatalf("unjudged.mode %v, want range", u["mode"])
	}
	if _, err := ReadCompareReport(bytes.NewReader(encode(t, m)), "report.json"); err != nil {
		t.Fatalf("read back: %v", err)
	}
	u["mode"] = "lenient"
	if _, err := ReadCompareReport(bytes.NewReader(encode(t, m)), "report.json"); err == nil || !strings.Contains(err.Error(), `unjudged.mode "lenient": want nonrelevant, condensed, range`) {
		t.Errorf("mode lenient read back: %v", err)
	}
}
