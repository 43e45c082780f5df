package gate

import (
	"strings"
	"testing"
)

// TestRefusalBlanketAnswers: a head that answers "abstain": true for every
// query fails max_false_refusals_increase listing every answerable query;
// one that answers "abstain": false for every query fails
// max_false_answers_increase listing the unanswerable ones. A waiver for
// another rule does not silence them.
func TestRefusalBlanketAnswers(t *testing.T) {
	s := refusalSet(t)
	right := map[string]bool{}
	all, none := map[string]bool{}, map[string]bool{}
	for _, q := range s.Queries {
		right[q.ID], all[q.ID], none[q.ID] = q.Unanswerable, true, false
	}
	base := refusalCard(t, s, false, right)
	other := []Waiver{{Query: "a1", Reason: "unrelated", Rules: []string{RuleFactsLost}}}
	for _, tc := range []struct {
		head map[string]bool
		rule string
		new  string
	}{
		{all, RuleFalseRefusals, "a1, a2, a3, a4, a5, a6"},
		{none, RuleFalseAnswers, "u1, u2"},
	} {
		c := mustCompare(t, base, refusalCard(t, s, false, tc.head), Policy{Thresholds: DefaultThresholds(), Waivers: other})
		r := findRule(c, tc.rule, "")
		if c.Verdict != Fail || r == nil || r.Outcome != RuleFail || !strings.Contains(r.Why, "new: "+tc.new) {
			t.Errorf("%s: verdict %s, rule %+v", tc.rule, c.Verdict, r)
		}
	}
}
