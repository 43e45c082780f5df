package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/internal/cmarkgfm"
)

// policyComparison is a failing comparison judged by the base commit's
// policy, from a change that loosens the gate and waives its own
// regression.
func policyComparison(t *testing.T) *gate.Comparison {
	f := newFixture(t, nil)
	f.head["q04"] = []string{"other/a"}
	f.head["q05"] = []string{"other/b"}
	exp := time.Date(2027, 1, 10, 0, 0, 0, 0, time.UTC)
	w := gate.Waiver{Query: "q04", Reason: "doc moved, relabel pending", Expires: exp}
	c, err := gate.CompareWith(f.card(t, f.base), f.card(t, f.head), gate.Policy{Thresholds: gate.DefaultThresholds(), Waivers: []gate.Waiver{w}})
	if err != nil {
		t.Fatal(err)
	}
	c.Policy = &gate.PolicyReport{Source: gate.PolicyBaseCommit, Commit: "abc123def4567890abc123def4567890abc12345",
		Changes:      []gate.PolicyChange{{Key: "max_recall_drop", Base: "0.02", Head: "1.00"}, {Key: "depth.candidates", Base: "5", Head: "62"}, {Key: "segment.jar_gon", Base: "none", Head: "max_recall_drop=0.50"}},
		WaiversAdded: []gate.Waiver{w, {Query: "q09", Reason: "unused", Expires: exp}}}
	return c
}

// TestPolicyGolden: the headline of every format names what the change
// does to the gate, in one line, and the JSON carries it as policy.
func TestPolicyGolden(t *testing.T) {
	c := policyComparison(t)
	txt, md, js, page := render(t, c, Text), render(t, c, Markdown), render(t, c, JSON), render(t, c, HTML)
	golden(t, "policy.golden.txt", txt)
	golden(t, "policy.golden.md", md)
	golden(t, "policy.golden.json", js)
	const change = "this PR changes the gate: max_recall_drop 0.02 → 1.00; depth.candidates 5 → 62; segment.jar_gon none → max_recall_drop=0.50: takes effect after merge · 1 regression waived by this PR: q04 — doc moved, relabel pending, expires 2027-01-10 · 1 waiver added by this PR, unused: q09 — unused, expires 2027-01-10"
	if line, _, _ := strings.Cut(string(txt), "\n"); !strings.HasSuffix(line, " · "+change) {
		t.Errorf("text headline %q", line)
	}
	if line, _, _ := strings.Cut(string(md), "\n"); !strings.HasPrefix(line, "### ❌ recallgate: fail — ") || !strings.HasSuffix(line, strings.ReplaceAll(change, "_", "&#95;")) {
		t.Errorf("markdown headline %q", line)
	}
	if !bytes.Contains(page, []byte(change)) {
		t.Error("the HTML headline lacks the change line")
	}
	for _, want := range []string{`"source": "base-commit"`, `"key": "depth.candidates"`, `"waivers_added": [`} {
		if !bytes.Contains(js, []byte(want)) {
			t.Errorf("JSON lacks %s", want)
		}
	}
	// Read back as an untrusted report, it renders the same.
	r, err := ReadCompareReport(bytes.NewReader(js), "report.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []Format{Text, Markdown, JSON} {
		var b bytes.Buffer
		if err := WriteCompareReport(&b, r, f); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b.Bytes(), render(t, c, f)) {
			t.Errorf("%s differs after a JSON round trip", f)
		}
	}
	for src, want := range map[string]string{"": "policy: the given config (no base commit)", "abc123def456": "policy: this change's config — the base commit has no recallgate.toml"} {
		c.Policy = &gate.PolicyReport{Source: gate.PolicyGivenConfig, Commit: src}
		if line, _, _ := strings.Cut(string(render(t, c, Text)), "\n"); !strings.HasSuffix(line, " · "+want) {
			t.Errorf("commit %q: headline %q", src, line)
		}
	}
}

// TestHostilePolicyRefusedOrEscaped: a report's policy holds only known
// sources and keys, commits, dates and no control character; the free
// text left (values, reasons) is escaped in the comment.
func TestHostilePolicyRefusedOrEscaped(t *testing.T) {
	js := render(t, policyComparison(t), JSON)
	for name, vandal := range map[string]func(p map[string]any){
		"source":        func(p map[string]any) { p["source"] = hostile },
		"commit":        func(p map[string]any) { p["commit"] = hostile },
		"key":           func(p map[string]any) { p["changes"].([]any)[0].(map[string]any)["key"] = hostile },
		"empty segment": func(p map[string]any) { p["changes"].([]any)[0].(map[string]any)["key"] = "segment." },
		"value newline": func(p map[string]any) { p["changes"].([]any)[0].(map[string]any)["head"] = "1\n::error::x" },
		"expiry":        func(p map[string]any) { p["waivers_added"].([]any)[0].(map[string]any)["expires"] = hostile },
		"given changes": func(p map[string]any) { p["source"] = gate.PolicyGivenConfig },
		"unknown field": func(p map[string]any) { p["extra"] = 1 },
	} {
		m := demoReport(t)
		p := mapOf(t, js)["policy"].(map[string]any)
		vandal(p)
		m["policy"] = p
		if _, err := ReadCompareReport(bytes.NewReader(encode(t, m)), "report.json"); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	m := demoReport(t)
	p := mapOf(t, js)["policy"].(map[string]any)
	p["changes"].([]any)[0].(map[string]any)["head"] = hostile
	p["waivers_added"].([]any)[0].(map[string]any)["reason"] = hostile
	m["policy"] = p
	r, err := ReadCompareReport(bytes.NewReader(encode(t, m)), "report.json")
	if err != nil {
		t.Fatal(err)
	}
	for f, raws := range map[Format][]string{Markdown: {"<img", "<script", "@octocat", "](javascript:"}, HTML: {"<img"}, Text: {"\n::error"}} {
		var b bytes.Buffer
		if err := WriteCompareReport(&b, r, f); err != nil {
			t.Fatal(err)
		}
		for _, raw := range raws {
			if strings.Contains(b.String(), raw) {
				t.Errorf("%s carries %q raw", f, raw)
			}
		}
		if f == Markdown {
			t.Run("cmark-gfm", func(t *testing.T) { cmarkgfm.AssertInert(t, b.String(), hostile) })
		}
		if !strings.Contains(b.String(), "octocat") {
			t.Errorf("%s dropped the hostile value instead of escaping it", f)
		}
	}
}

func mapOf(t *testing.T, js []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
