package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestReadRefusesInconclusiveNothingExplains: a forged report (an
// artifact of the pull request's own job, read back by `report --in` or
// `comment`) turned its failing rules to "inconclusive", its reasons and
// verdict with them, and rendered "inconclusive, not failed" (exit 0)
// over a real regression. A new miss is never inconclusive, and a recall
// drop over its limit is inconclusive only with fewer flips than
// min_flipped or with significance required; both otherwise are refused.
func TestReadRefusesInconclusiveNothingExplains(t *testing.T) {
	rule := func(m map[string]any, i int) map[string]any { return m["rules"].([]any)[i].(map[string]any) }
	inconclusive := func(m map[string]any) {
		m["verdict"] = "inconclusive"
		m["reasons"] = []any{"x"}
		m["reason_kinds"] = []any{"inconclusive"}
	}
	recallDrop := func(m map[string]any) {
		rule(m, 0)["value"], rule(m, 0)["flipped"], rule(m, 0)["outcome"] = 0.023, 2, "inconclusive"
		inconclusive(m)
	}
	for _, tt := range []struct {
		name   string
		vandal func(m map[string]any)
		want   string // "" = read
	}{
		{"a new miss made inconclusive", func(m map[string]any) {
			m["new_misses"] = []any{m["queries"].([]any)[0].(map[string]any)["id"]}
			rule(m, 1)["value"], rule(m, 1)["flipped"], rule(m, 1)["outcome"] = 1.0, 1, "inconclusive"
			inconclusive(m)
		}, `rules[1] (max_new_misses): outcome inconclusive, but a new miss is never inconclusive: its value 1 over its limit 0 fails`},
		{"a recall drop made inconclusive", recallDrop,
			`rules[0] (max_recall_drop): outcome inconclusive, but its value 0.023 is over its limit 0.02 with 2 queries flipped (min_flipped 1) and no significance required`},
		{"a recall drop too few flipped", func(m map[string]any) {
			recallDrop(m)
			m["thresholds"].(map[string]any)["min_flipped"] = 3
		}, ""},
		{"a recall drop not significant", func(m map[string]any) {
			recallDrop(m)
			m["thresholds"].(map[string]any)["require_significance"] = true
		}, ""},
	} {
		m := demoReport(t)
		tt.vandal(m)
		_, err := ReadCompareReport(bytes.NewReader(encode(t, m)), "report.json")
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), "report.json: report refused: "+tt.want)):
			t.Errorf("%s: %v\nwant %q", tt.name, err, tt.want)
		}
	}
}

// TestReadRefusesARuleLeftOut: a forged report dropped a failing rule its
// thresholds set (max_ndcg_drop, on by default) and recomputed to a pass;
// the comparison applies every rule its thresholds set, so one left out
// was removed and the report is refused. A rule the thresholds leave off
// may be absent.
func TestReadRefusesARuleLeftOut(t *testing.T) {
	m := demoReport(t)
	rules := m["rules"].([]any)
	i := -1
	for j, r := range rules {
		if r.(map[string]any)["name"] == "max_ndcg_drop" && r.(map[string]any)["segment"] == "" {
			i = j
		}
	}
	if i < 0 {
		t.Fatal("the demo report has no max_ndcg_drop rule to remove")
	}
	m["rules"] = append(rules[:i:i], rules[i+1:]...)
	_, err := ReadCompareReport(bytes.NewReader(encode(t, m)), "report.json")
	if want := "report refused: rules: no max_ndcg_drop rule for the whole set, but thresholds.max_ndcg_drop sets it"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("max_ndcg_drop left out: %v, want %q", err, want)
	}
}
