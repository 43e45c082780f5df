package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/internal/cmarkgfm"
)

// erosionComparison: the base already lost doc/01 on q01, the head loses
// doc/02 on q02 too: 0.050 from its base (within max_recall_drop 0.10),
// but against the reviewed baseline (q01–q09 at 1.000; q10 not in it) the
// head's mean over nine queries is 8/9 = 0.889, 0.111 below (limit 0.10).
func erosionComparison(t *testing.T, name string) *gate.Comparison {
	t.Helper()
	f := newFixture(t, nil)
	f.base["q01"] = []string{"doc/01x"}
	f.head["q01"] = []string{"doc/01x"}
	f.head["q02"] = []string{"doc/02x"}
	th := gate.DefaultThresholds()
	th.MaxRecallDrop = 0.10
	loose := 0.2
	th.MaxNDCGDrop, th.MaxPrecisionDrop, th.MaxBaselineDrop = &loose, &loose, new(float64)
	*th.MaxBaselineDrop = 0.10
	b := &gate.ReviewedBaseline{Name: name, Recall: map[string]float64{}}
	for _, q := range f.set.Queries[:9] {
		b.Recall[q.ID] = 1
	}
	c, err := gate.CompareWith(f.card(t, f.base), f.card(t, f.head), gate.Policy{Thresholds: th, Baseline: b})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestBaselineDistanceEveryFormat: the distance to the baseline is one
// line of the text, Markdown and HTML reports, two properties of the
// JUnit suite and a baseline_distance object of the JSON, which reads back
// to the same reports; the failing rule is named in the reasons.
func TestBaselineDistanceEveryFormat(t *testing.T) {
	c := erosionComparison(t, "baselines/head.jsonl@abc123def456")
	if c.Verdict != gate.Fail || len(c.Reasons) != 1 || !strings.HasSuffix(c.Reasons[0], "(baselines/head.jsonl@abc123def456, 9 queries; limit 0.100, max_baseline_drop)") {
		t.Fatalf("verdict %s reasons %q", c.Verdict, c.Reasons)
	}
	const line = "Distance to the baseline: head mean recall@10 0.889 is 0.111 below the reviewed baseline's 1.000 (baselines/head.jsonl@abc123def456, 9 queries; limit 0.100, max_baseline_drop); 1 query not in the baseline, left out of both: q10"
	txt, md, js, page, xml := render(t, c, Text), render(t, c, Markdown), render(t, c, JSON), render(t, c, HTML), render(t, c, JUnit)
	golden(t, "baseline.golden.txt", txt)
	golden(t, "baseline.golden.md", md)
	if !bytes.Contains(txt, []byte("\n"+line+"\n")) {
		t.Errorf("text lacks the line %q:\n%s", line, txt)
	}
	const mdLine = "**Distance to the baseline:** head mean recall@10 0.889 is 0.111 below the reviewed baseline's 1.000 (`baselines/head.jsonl@abc123def456`, 9 queries; limit 0.100, max_baseline_drop); 1 query not in the baseline, left out of both: `q10`\n"
	if n := bytes.Count(md, []byte(mdLine)); n != 1 {
		t.Errorf("Markdown has the line %d times, want once:\n%s", n, md)
	}
	if !bytes.Contains(page, []byte(strings.ReplaceAll(line, "'", "&#39;"))) {
		t.Errorf("HTML lacks the line")
	}
	if !bytes.Contains(xml, []byte(`<property name="recall_baseline" value="1.0000">`)) || !bytes.Contains(xml, []byte(`<property name="baseline_distance" value="`+strings.ReplaceAll(line, "'", "&#39;")+`">`)) ||
		!bytes.Contains(xml, []byte("below the reviewed baseline")) {
		t.Errorf("JUnit lacks the baseline:\n%s", xml)
	}
	for _, want := range []string{`"max_baseline_drop": 0.1`, `"baseline_distance": {`, `"run": "baselines/head.jsonl@abc123def456"`, `"not_in_baseline": [
      "q10"
    ]`} {
		if !bytes.Contains(js, []byte(want)) {
			t.Errorf("JSON lacks %s", want)
		}
	}
	r, err := ReadCompareReport(bytes.NewReader(js), "report.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []Format{Text, Markdown, JSON, HTML, JUnit} {
		var b bytes.Buffer
		if err := WriteCompareReport(&b, r, f); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b.Bytes(), render(t, c, f)) {
			t.Errorf("%s differs after a JSON round trip", f)
		}
	}
	// Without the rule, no line anywhere.
	f := newFixture(t, nil)
	for _, format := range []Format{Text, Markdown, HTML, JUnit, JSON} {
		if out := render(t, f.compare(t), format); bytes.Contains(out, []byte("baseline")) {
			t.Errorf("%s mentions a baseline without the rule:\n%s", format, out)
		}
	}
}

// TestBaselineDistanceHostile: the reader holds the erosion rule to its
// thresholds and its distance, so a report edited to pass it is refused,
// and the run's name is escaped in the comment.
func TestBaselineDistanceHostile(t *testing.T) {
	js := string(render(t, erosionComparison(t, "baselines/head.jsonl@abc123def456"), JSON))
	for _, tt := range []struct{ name, old, new, want string }{
		{"rule dropped with its threshold", `"max_baseline_drop": 0.1`, `"max_baseline_drop_": 0.1`, "unknown field"},
		{"rule renamed", `"name": "max_baseline_drop"`, `"name": "max_recall_drop"`, "rules: no max_baseline_drop rule, but thresholds.max_baseline_drop is 0.1"},
		{"limit raised in the rule", `"limit": 0.1,
      "flipped": 2,`, `"limit": 0.5,
      "flipped": 2,`, "limit 0.5, but thresholds.max_baseline_drop is 0.1"},
		{"distance removed", `"baseline_distance": {`, `"baseline_distance_": {`, "unknown field"},
		{"drop shrunk", `"drop": 0.1111111111111111`, `"drop": 0.01`, "disagrees with rules["},
		{"threshold raised", `"max_baseline_drop": 0.1`, `"max_baseline_drop": 0.5`, "limit 0.1, but thresholds.max_baseline_drop is 0.5"},
		{"control character", `"q10"
    ]`, `"q10\u001b[2J"
    ]`, "control character"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(js, tt.old) {
				t.Fatalf("the report has no %q:\n%s", tt.old, js)
			}
			_, err := ReadCompareReport(strings.NewReader(strings.Replace(js, tt.old, tt.new, 1)), "report.json")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
	}
	// A pass with the drop beyond its limit: verdict, outcome and reasons
	// all edited, still refused.
	forged := strings.NewReplacer(`"verdict": "fail"`, `"verdict": "pass"`, `"outcome": "fail"`, `"outcome": "pass"`).Replace(js)
	if _, err := ReadCompareReport(strings.NewReader(forged), "report.json"); err == nil || !strings.Contains(err.Error(), "outcome pass, but its drop 0.1111111111111111 against the limit 0.1 gives fail") {
		t.Errorf("a forged pass: %v", err)
	}
	md := render(t, erosionComparison(t, "b/`x`<img src=x>@abc"), Markdown)
	t.Run("cmark-gfm", func(t *testing.T) { cmarkgfm.AssertInert(t, string(md), "b/`x`<img src=x>@abc") })
	// In a code span (the distance line) or entity-escaped (the reason),
	// never live.
	if bytes.Count(md, []byte("<img")) != 1 || !bytes.Contains(md, []byte("(``b/`x`<img src=x>@abc``, 9 queries")) || !bytes.Contains(md, []byte("(b/&#96;x&#96;&lt;img src=x&gt;@")) {
		t.Errorf("the run's name is live in the comment:\n%s", md)
	}
}
