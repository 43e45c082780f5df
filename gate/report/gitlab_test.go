package report

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"testing"
)

// gitlabHostile is text a fork's eval set could carry to make a GitLab
// note link, label or notify: every reference form GitLab resolves.
const gitlabHostile = `see !123 and group/proj!4, ~bug ~"needs review" ~42, %v1.0 %"Q3 release" %7, $99 &12 @group/team @alice #5 owner/p#6 &#33;8`

// liveGitLabRef finds, in the text a note renders to (entities decoded),
// a reference GitLab would resolve: a sigil right before what it names.
var liveGitLabRef = regexp.MustCompile(`(?:^|[^\w\x{200b}])(?:[!$&#]\d|[~%][\w"]|@\w)|\w[!#]\d`)

func TestForGitLabReferencesInert(t *testing.T) {
	m := demoReport(t)
	m["reasons"] = []any{gitlabHostile}
	m["reason_kinds"] = []any{"fail"}
	m["notes"] = []any{gitlabHostile}
	m["warnings"] = []any{gitlabHostile}
	for _, q := range m["queries"].([]any) {
		q.(map[string]any)["query"] = gitlabHostile
	}
	r, err := ReadCompareReport(bytes.NewReader(encode(t, m)), "report.json")
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := WriteCompareReport(&md, r, Markdown); err != nil {
		t.Fatal(err)
	}
	note := ForGitLab(md.String())
	if n := strings.Count(note, "~\u200b") + strings.Count(note, "&#126;\u200b"); n < 3 {
		t.Errorf("the hostile text should appear, inert, where it was put (%d inert labels):\n%s", n, note)
	}
	fence := false
	for i, line := range strings.Split(html.UnescapeString(note), "\n") {
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		if fence {
			continue // the chart's own colours; GitLab links nothing in code
		}
		if loc := liveGitLabRef.FindStringIndex(line); loc != nil {
			t.Errorf("line %d carries a live GitLab reference %q: %s", i+1, line[loc[0]:loc[1]], line)
		}
	}
	if ForGitLab("50%off, recall@10, 100% of 3") != "50%off, recall@10, 100% of 3" {
		t.Errorf("ForGitLab changed ordinary text: %q", ForGitLab("50%off, recall@10, 100% of 3"))
	}
}

func TestForGitLabEscapedForms(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"!123", "&#33;·123"},
		{"a!b", "a&#33;b"},
		{"~bug ~\"x y\" ~~s~~", "&#126;·bug &#126;·\"x y\" &#126;&#126;·s&#126;&#126;"},
		{"%v1 %\"Q3\" 5%x", "%·v1 %·\"Q3\" 5%x"},
		{"$9 &7 & x", "&#36;·9 &amp;·7 &amp; x"},
	} {
		if got := dots(ForGitLab(EscapeMarkdown(tt.in))); got != tt.want {
			t.Errorf("ForGitLab(EscapeMarkdown(%q)) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
