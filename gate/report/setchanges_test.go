package report

import (
	"bytes"
	"html"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/internal/cmarkgfm"
)

// setChangesComparison is the policy comparison of a change whose set
// proposes one change of every kind.
func setChangesComparison(t *testing.T) *gate.Comparison {
	c := policyComparison(t)
	c.SetChanges = &gate.SetChanges{Source: gate.SetBaseCommit, Queries: 30, Added: []string{"q31", "q32"}, Removed: []string{"q04"},
		Relabelled: []string{"q05"}, Reworded: []string{"q06"}, Remarked: []string{"q07", "q08"}, JudgeGrades: []string{"q09"}}
	return c
}

// TestSetChangesGolden: every format says which set scored and what the
// change proposes for it, the headline in one short clause; the JSON
// carries set_changes and reads back to the same reports.
func TestSetChangesGolden(t *testing.T) {
	c := setChangesComparison(t)
	txt, md, js, page, xml := render(t, c, Text), render(t, c, Markdown), render(t, c, JSON), render(t, c, HTML), render(t, c, JUnit)
	golden(t, "setchanges.golden.txt", txt)
	golden(t, "setchanges.golden.md", md)
	golden(t, "setchanges.golden.json", js)
	golden(t, "setchanges.golden.xml", xml)
	const clause = "set: the base commit's (30 queries); this change proposes 2 added, 1 removed, 1 relabelled, 1 reworded, 2 re-marked, 1 with judge grades"
	for name, out := range map[string][]byte{"text": txt, "markdown": md, "HTML": page, "JUnit": xml} {
		if !strings.Contains(html.UnescapeString(string(out)), clause) {
			t.Errorf("%s lacks the headline clause", name)
		}
	}
	if line, _, _ := strings.Cut(string(txt), "\n"); !strings.Contains(line, " · "+clause) {
		t.Errorf("text headline %q", line)
	}
	for _, want := range []string{"\nproposal: added (retrieved on both sides and listed, not gating until merged): q31, q32\n", "\nproposal: removed (still gated: the base commit's set holds them): q04\n"} {
		if !bytes.Contains(txt, []byte(want)) {
			t.Errorf("text lacks %q", want)
		}
	}
	if !bytes.Contains(md, []byte("- **proposal:** removed (still gated: the base commit's set holds them): `q04`\n")) || !strings.Contains(html.UnescapeString(string(page)), "judge grades added or changed (none counts before merge): q09") {
		t.Error("Markdown or HTML lacks the proposal's lists")
	}
	if !bytes.Contains(js, []byte(`"set_changes": {`)) || !bytes.Contains(js, []byte(`"remarked": [`)) {
		t.Errorf("JSON lacks set_changes")
	}
	r, err := ReadCompareReport(bytes.NewReader(js), "report.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []Format{Text, Markdown, JSON, JUnit} {
		var b bytes.Buffer
		if err := WriteCompareReport(&b, r, f); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b.Bytes(), render(t, c, f)) {
			t.Errorf("%s differs after a JSON round trip", f)
		}
	}
	// The base commit's set, unchanged: no clause; the given set: none
	// either (the note says the set is new).
	for _, sc := range []*gate.SetChanges{{Source: gate.SetBaseCommit, Queries: 30}, {Source: gate.SetGiven, Queries: 30}} {
		c.SetChanges = sc
		if out := render(t, c, Text); bytes.Contains(out, []byte("set: ")) || bytes.Contains(out, []byte("proposal:")) {
			t.Errorf("%+v: the report speaks of a proposal:\n%s", sc, out)
		}
	}
}

// TestSetChangesReadStrictly: set_changes read back holds a known source,
// every list, ids with no control character and none twice; a given set
// proposes nothing.
func TestSetChangesReadStrictly(t *testing.T) {
	js := render(t, setChangesComparison(t), JSON)
	for name, vandal := range map[string]func(s map[string]any){
		"source":        func(s map[string]any) { s["source"] = hostile },
		"no list":       func(s map[string]any) { delete(s, "reworded") },
		"null list":     func(s map[string]any) { s["removed"] = nil },
		"id newline":    func(s map[string]any) { s["added"] = []any{"q31\n::error::x"} },
		"id twice":      func(s map[string]any) { s["added"] = []any{"q31", "q31"} },
		"given changes": func(s map[string]any) { s["source"] = gate.SetGiven },
		"negative":      func(s map[string]any) { s["queries"] = -1 },
		"unknown field": func(s map[string]any) { s["extra"] = 1 },
		"not a list":    func(s map[string]any) { s["remarked"] = "q07" },
	} {
		m := demoReport(t)
		s := mapOf(t, js)["set_changes"].(map[string]any)
		vandal(s)
		m["set_changes"] = s
		if _, err := ReadCompareReport(bytes.NewReader(encode(t, m)), "report.json"); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestHostileSetChangesInert: ids a pull request's set carries are inert
// in every format the proposal is written to (cmark-gfm for GitHub's
// Markdown and GitLab's note).
func TestHostileSetChangesInert(t *testing.T) {
	m := demoReport(t)
	s := mapOf(t, render(t, setChangesComparison(t), JSON))["set_changes"].(map[string]any)
	for _, k := range []string{"added", "removed", "relabelled", "reworded", "remarked", "judge_grades"} {
		s[k] = []any{hostile, gitlabHostile}
	}
	m["set_changes"] = s
	r, err := ReadCompareReport(bytes.NewReader(encode(t, m)), "report.json")
	if err != nil {
		t.Fatal(err)
	}
	// Markdown writes each id in a code span (where "<img" is text): what
	// a renderer makes of it is cmark-gfm's to say.
	for f, raws := range map[Format][]string{Markdown: nil, HTML: {"<img", "<script>alert"}, Text: {"\n::error"}, JUnit: {"<img", "<script"}} {
		var b bytes.Buffer
		if err := WriteCompareReport(&b, r, f); err != nil {
			t.Fatal(err)
		}
		for _, raw := range raws {
			if strings.Contains(b.String(), raw) {
				t.Errorf("%s carries %q raw", f, raw)
			}
		}
		if !strings.Contains(b.String(), "octocat") {
			t.Errorf("%s dropped the hostile id instead of escaping it", f)
		}
		if f == Markdown {
			t.Run("cmark-gfm", func(t *testing.T) { cmarkgfm.AssertInert(t, b.String(), hostile) })
			t.Run("cmark-gfm GitLab", func(t *testing.T) { cmarkgfm.AssertInertGitLab(t, ForGitLab(b.String()), gitlabHostile) })
		}
	}
}
