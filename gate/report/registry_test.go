package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
)

// TestEveryRuleEveryFormat renders a report holding every registered rule
// (each failed, with its reason) and every registered metric through
// every format, and reads the JSON back: a rule or metric left out of a
// format, or refused by the strict reader, fails here.
func TestEveryRuleEveryFormat(t *testing.T) {
	data, err := os.ReadFile("testdata/mixed.golden.json")
	if err != nil {
		t.Fatal(err)
	}
	r, err := ReadCompareReport(bytes.NewReader(data), "mixed.golden.json")
	if err != nil {
		t.Fatal(err)
	}
	d := r.depth()
	r.Rules, r.Reasons, r.ReasonKinds, r.Verdict = nil, nil, nil, string(gate.Fail)
	th := gate.DefaultThresholds()
	for i, rule := range gate.Rules() {
		limit := float64(i % 3)
		if rule.Kind == gate.KindFloor || rule.Kind == gate.KindDrop {
			limit = 0.01 * float64(i+1)
		}
		switch rule.Key {
		case gate.RuleRecallDrop:
			limit = r.Thresholds.MaxRecallDrop
		case gate.RuleNewMisses:
			limit = float64(r.Thresholds.MaxNewMisses)
		case gate.RuleBaselineDrop:
			r.Thresholds.MaxBaselineDrop = &limit
		}
		rule.Set(&th, limit)
		why := fmt.Sprintf("broke %s on purpose", rule.Key)
		ru := RuleInfo{Name: rule.Key, Metric: rule.Metric.Key, Depth: rule.Metric.Depth.Of(d), Queries: 3, Base: 0.9, Head: 0.1, Value: limit + 0.5, Limit: limit, Flipped: 2, Outcome: gate.RuleFail, Reason: why}
		switch rule.Key {
		case gate.RuleNewMisses:
			ru.Value = float64(len(r.NewMisses))
		case gate.RuleBaselineDrop:
			r.BaselineDistance = &BaselineDistanceInfo{Run: "reviewed.jsonl", Queries: ru.Queries, Baseline: ru.Base, Head: ru.Head, Drop: ru.Value, Limit: ru.Limit, NotInBaseline: []string{}}
		}
		r.Rules = append(r.Rules, ru)
		r.Reasons = append(r.Reasons, why)
		r.ReasonKinds = append(r.ReasonKinds, gate.ReasonFail)
	}
	// Every rule's limit under thresholds too, as the reader checks.
	r.Thresholds = thresholdInfo(th)
	missing := th.MaxMissingGold
	r.Thresholds.MaxMissingGold = &missing
	for i, m := range gate.Metrics() {
		v := 0.1 + 0.01*float64(i)
		setValues(&r.Summary.Base, func(x *gate.Metric) float64 { return metricValueOr(&r.Summary.Base, x, m, v) })
	}
	out := map[Format]string{}
	for _, f := range []Format{Text, JSON, Markdown, HTML, JUnit, Benchmark} {
		var b bytes.Buffer
		if err := WriteCompareReport(&b, r, f); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[f] = b.String()
	}
	back, err := ReadCompareReport(strings.NewReader(out[JSON]), "every-rule.json")
	if err != nil {
		t.Fatalf("the JSON of every rule read back: %v", err)
	}
	if len(back.Rules) != len(gate.Rules()) {
		t.Fatalf("%d rules read back, want %d", len(back.Rules), len(gate.Rules()))
	}
	md := gateLine(back)
	for i, rule := range gate.Rules() {
		ru := back.Rules[i]
		if ru.Name != rule.Key || ru.Metric != rule.Metric.Key {
			t.Errorf("rules[%d] read back as %s on %s, want %s on %s", i, ru.Name, ru.Metric, rule.Key, rule.Metric.Key)
		}
		words := rule.Words(d)
		if strings.TrimSpace(words) == "" || !strings.Contains(md, words+" ") {
			t.Errorf("%s: the Markdown gate line lacks %q: %s", rule.Key, words, md)
		}
		if lbl := ru.label(names(d)); lbl == rule.Key {
			t.Errorf("%s: the rules table labels it without its metric", rule.Key)
		}
		why := "broke " + rule.Key + " on purpose"
		for _, f := range []Format{Text, Markdown, HTML, JUnit} {
			if !strings.Contains(out[f], EscapeFor(f, why)) {
				t.Errorf("%s: the %s report lacks the rule's reason %q", rule.Key, f, why)
			}
		}
		if !strings.Contains(out[Text], rule.Key) {
			t.Errorf("%s: the text report does not name the rule", rule.Key)
		}
		if v, on := rule.Setting(&th); on {
			if got, ok := thresholdOf(&back.Thresholds, rule.Key); !ok || got != v {
				t.Errorf("%s: thresholds read back %v (%v), want %v", rule.Key, got, ok, v)
			}
		}
	}
	for _, m := range gate.Metrics() {
		if got, want := metricValue(&back.Summary.Base, m), metricValue(&r.Summary.Base, m); got != want {
			t.Errorf("%s: summary.base read back as %v, want %v", m.Key, got, want)
		}
		label := m.Label(d)
		for _, f := range []Format{Text, Markdown, HTML, Benchmark} {
			if !strings.Contains(out[f], label) {
				t.Errorf("%s: the %s report lacks the metric %q", m.Key, f, label)
			}
		}
		if !strings.Contains(out[JSON], fmt.Sprintf("%q: ", m.Key)) {
			t.Errorf("%s: the JSON report lacks the key", m.Key)
		}
	}
}

// metricValueOr is want's value for m, x's current value for the others.
func metricValueOr(s *SideSummary, x, m *gate.Metric, v float64) float64 {
	if x == m {
		return v
	}
	return metricValue(s, x)
}

// EscapeFor is the reason as format f writes it.
func EscapeFor(f Format, s string) string {
	switch f {
	case Markdown:
		return EscapeMarkdown(s)
	}
	return s
}

// TestEveryRuleUnderThresholds: every registered rule set in the policy
// appears under the JSON report's "thresholds" with its limit (a rule no
// field of ThresholdInfo holds after the fields), and reads back to the
// same bytes; with no such rule set, the thresholds are written as they
// were before the registry.
func TestEveryRuleUnderThresholds(t *testing.T) {
	for _, rule := range gate.Rules() {
		th := gate.DefaultThresholds()
		v := 0.25
		if rule.IsCount() {
			v = 7
		}
		rule.Set(&th, v)
		ti := thresholdInfo(th)
		if rule.Key == gate.RuleMissingGold { // a drift run's report (newReport)
			n := th.MaxMissingGold
			ti.MaxMissingGold = &n
		}
		b, err := json.Marshal(ti)
		if err != nil {
			t.Fatalf("%s: %v", rule.Key, err)
		}
		var got map[string]any
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%s: %v", rule.Key, err)
		}
		if got[rule.Key] != v {
			t.Errorf("%s = %v: thresholds carry %v: %s", rule.Key, v, got[rule.Key], b)
		}
		var back ThresholdInfo
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: read back: %v", rule.Key, err)
		}
		if again, _ := json.Marshal(back); string(again) != string(b) {
			t.Errorf("%s: read back and written again:\n%s\nwant\n%s", rule.Key, again, b)
		}
	}
	if err := json.Unmarshal([]byte(`{"max_recall_drop":0.02,"max_stray_drop":1}`), &ThresholdInfo{}); err == nil {
		t.Error("a key no rule has was read")
	}
}

// TestReaderHoldsRuleLimitsToThresholds: a whole-set rule's limit is its
// key's under thresholds, for every rule the registry has: a report whose
// rule was loosened (or whose thresholds were) is refused.
func TestReaderHoldsRuleLimitsToThresholds(t *testing.T) {
	data, err := os.ReadFile("testdata/mixed.golden.json")
	if err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string][2]string{
		"rule loosened":       {"\"name\": \"max_ndcg_drop\",", "\"name\": \"max_ndcg_drop\",\n      \"limit\": 0.5,"},
		"thresholds loosened": {"\"max_ndcg_drop\": 0.05,", "\"max_ndcg_drop\": 0.5,"},
	} {
		forged := strings.Replace(string(data), edit[0], edit[1], 1)
		if forged == string(data) {
			t.Fatalf("%s: the edit did not apply", name)
		}
		if name == "rule loosened" { // the rule's own limit comes later in the object: drop it
			forged = strings.Replace(forged, "\"limit\": 0.05,", "", 1)
		}
		_, err := ReadCompareReport(strings.NewReader(forged), "forged.json")
		if err == nil || !strings.Contains(err.Error(), "(max_ndcg_drop): limit") {
			t.Errorf("%s: %v, want the rule's limit refused", name, err)
		}
	}
}
