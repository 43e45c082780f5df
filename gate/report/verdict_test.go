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
