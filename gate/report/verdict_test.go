package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestReadRefusesVerdictItsRulesDoNotGive: a report whose verdict was
// edited apart from its rules is refused, naming the verdict and the rule
// that decides it; the verdict its rules give is read.
func TestReadRefusesVerdictItsRulesDoNotGive(t *testing.T) {
	rule := func(m map[string]any, i int) map[string]any { return m["rules"].([]any)[i].(map[string]any) }
	for _, tt := range []struct {
		name   string
		vandal func(m map[string]any)
		want   string // "" = read
	}{
		{"as written", func(m map[string]any) {}, ""},
		{"a failed rule under pass", func(m map[string]any) { rule(m, 1)["outcome"] = "fail" },
			`verdict "pass" disagrees with the report's rules: rules[1] (max_new_misses).outcome is fail, so the verdict is "fail"`},
		{"a failed rule, verdict fail", func(m map[string]any) { rule(m, 1)["outcome"] = "fail"; m["verdict"] = "fail" }, ""},
		{"a failed rule under inconclusive", func(m map[string]any) { rule(m, 0)["outcome"] = "fail"; m["verdict"] = "inconclusive" },
			`verdict "inconclusive" disagrees with the report's rules: rules[0] (max_recall_drop).outcome is fail, so the verdict is "fail"`},
		{"an inconclusive rule under pass", func(m map[string]any) { rule(m, 2)["outcome"] = "inconclusive" },
			`verdict "pass" disagrees with the report's rules: rules[2] (max_ndcg_drop).outcome is inconclusive, so the verdict is "inconclusive"`},
		{"fail with every rule passing", func(m map[string]any) { m["verdict"] = "fail" },
			`verdict "fail" disagrees with the report's rules: no rule failed or was inconclusive and no query is head-unstable, so the verdict is "pass"`},
		{"a head-unstable query under pass", func(m map[string]any) { m["head_unstable"] = []any{m["queries"].([]any)[0].(map[string]any)["id"]} },
			`verdict "pass" disagrees with the report's rules: head_unstable names 1 queries, so the verdict is "inconclusive"`},
		{"a rule over its limit left at pass", func(m map[string]any) { rule(m, 0)["value"] = 0.023 },
			`rules[0] (max_recall_drop): outcome pass, but its value 0.023 is over its limit 0.02`},
		{"a floor rule under its floor left at pass", func(m map[string]any) {
			m["rules"] = append(m["rules"].([]any), map[string]any{"name": "min_recall", "metric": "recall_at_n", "depth": 5, "segment": "", "queries": 3, "base": 0.9, "head": 0.6, "value": 0.6, "limit": 0.8, "flipped": 0, "outcome": "pass"})
		}, `rules[6] (min_recall): outcome pass, but its value 0.6 is under its floor 0.8`},
		{"a floor rule at its floor", func(m map[string]any) {
			m["rules"] = append(m["rules"].([]any), map[string]any{"name": "min_recall", "metric": "recall_at_n", "depth": 5, "segment": "", "queries": 3, "base": 0.9, "head": 0.8, "value": 0.8, "limit": 0.8, "flipped": 0, "outcome": "pass"})
		}, ""},
		{"a failed rule edited to skipped", func(m map[string]any) { rule(m, 2)["outcome"] = "skipped"; rule(m, 2)["value"] = 0.07 },
			`rules[2] (max_ndcg_drop): outcome skipped, but it measured base 0.9, head 0.9099531166420329, value 0.07`},
		{"the failing rules deleted", func(m map[string]any) { m["rules"] = m["rules"].([]any)[2:] },
			`rules: no max_recall_drop rule for the whole set, which every comparison applies`},
		{"a rule's limit loosened apart from the thresholds", func(m map[string]any) { rule(m, 0)["limit"] = 1.0 },
			`rules[0] (max_recall_drop): limit 1, but thresholds.max_recall_drop is 0.02`},
		{"the new-miss count edited apart from new_misses", func(m map[string]any) {
			m["new_misses"] = []any{m["queries"].([]any)[0].(map[string]any)["id"]}
		}, `rules[1] (max_new_misses): value 0, but new_misses names 1 queries`},
		{"a fail reason under pass", func(m map[string]any) {
			m["reasons"] = []any{"1 query newly at zero recall"}
			m["reason_kinds"] = []any{"fail"}
		},
			`verdict "pass" disagrees with the report's reasons: reason_kinds[0] is fail`},
		{"an inconclusive reason under pass", func(m map[string]any) { m["reasons"] = []any{"x"}; m["reason_kinds"] = []any{"inconclusive"} },
			`verdict "pass" disagrees with the report's reasons: reason_kinds[0] is inconclusive`},
		{"a note under pass", func(m map[string]any) { m["reasons"] = []any{"x"}; m["reason_kinds"] = []any{"note"} }, ""},
		{"a fail reason under inconclusive", func(m map[string]any) {
			rule(m, 2)["outcome"] = "inconclusive"
			m["verdict"] = "inconclusive"
			m["reasons"] = []any{"x"}
			m["reason_kinds"] = []any{"fail"}
		}, `verdict "inconclusive" disagrees with the report's reasons: reason_kinds[0] is fail`},
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

// failVerdict makes a report's first rule fail and its verdict fail, as a
// report that carries a fail reason must be.
func failVerdict(m map[string]any) {
	m["verdict"] = "fail"
	m["rules"].([]any)[0].(map[string]any)["outcome"] = "fail"
}
