package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
)

// TestJudgeGolden: the judge object in JSON (and read back strictly), its
// calibration in the JUnit properties, its health lines in the text.
func TestJudgeGolden(t *testing.T) {
	f := newFixture(t, nil)
	c := f.compare(t)
	c.Judge = &gate.JudgeReport{Name: "llm", Fingerprint: "sha256:" + strings.Repeat("ab", 32), Overlap: 8, Kappa: 0.5, Weighted: 0.5,
		JudgeRelevant: 1, PeopleRelevant: 1, Graded: 16, Why: "kappa 0.50 is under min_judge_agreement 0.7",
		Disagreements: []gate.JudgeDisagreement{{Query: "q01", Doc: "doc/x", People: 0, Judge: 2, Reason: "<b>yes</b>\n::error::x"}, {Query: "q02", Doc: "doc/02", People: 2, Judge: 0}}}
	c.Health = append(c.Health, "judge llm (abababababab) against people on 8 documents both graded: Cohen's kappa 0.50 relevant or not, quadratic-weighted 0.50 on 0–3; judge relevant where people said not: 1, people relevant where the judge said not: 1; its grades are not used: kappa 0.50 is under min_judge_agreement 0.7")
	js := render(t, c, JSON)
	golden(t, "judge.golden.json", js)
	golden(t, "judge.golden.xml", render(t, c, JUnit))
	golden(t, "judge.golden.txt", render(t, c, Text))
	r, err := ReadCompareReport(bytes.NewReader(js), "report.json")
	if err != nil || r.Judge == nil || r.Judge.Kappa != 0.5 || len(r.Judge.Disagreements) != 2 || r.Judge.Disagreements[0].Reason != "<b>yes</b>\n::error::x" {
		t.Fatalf("read back: %+v, %v", r, err)
	}
	for _, c := range []struct{ from, to, want string }{
		{`"kappa": 0.5,`, `"kappa": 1.5,`, "judge.kappa 1.5"},
		{`"used": false,`, `"used": false, "used2": 1,`, "unknown field"},
		{`"documents_used": 0,`, `"documents_used": 3,`, "judge.documents_used 3 with used false"},
		{`"fingerprint": "sha256:abab`, `"fingerprint": "md5:abab`, "judge.fingerprint"},
		{`"people": 0,`, `"people": 1,`, "want one relevant, one not"},
		{`"doc": "doc/x"`, `"doc": "doc/\u0007x"`, "control character"},
	} {
		bad := strings.Replace(string(js), c.from, c.to, 1)
		if bad == string(js) {
			t.Fatalf("%q is not in the report", c.from)
		}
		if _, err := ReadCompareReport(strings.NewReader(bad), "report.json"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s → %s: %v, want %q", c.from, c.to, err, c.want)
		}
	}
}
