package report

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/internal/cmarkgfm"
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
	failVerdict(m) // a fail reason is a failed rule's
	m["notes"] = []any{gitlabHostile}
	m["warnings"] = []any{gitlabHostile}
	for _, q := range m["queries"].([]any) {
		q.(map[string]any)["query"] = gitlabHostile
	}
	note := ForGitLab(markdownOf(t, m))
	t.Run("cmark-gfm", func(t *testing.T) { cmarkgfm.AssertInertGitLab(t, note, gitlabHostile) })
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

// TestForGitLabBracketAndIterationReferencesInert: GitLab also resolves
// "[vulnerability:1]", "[work_item:3]", "[contact:…]", "[feature_flag:4]"
// and "*iteration:5" / "*iteration:\"name\"" in the text a note renders
// to, where EscapeMarkdown's &#91; and &#42; are "[" and "*" again.
func TestForGitLabBracketAndIterationReferencesInert(t *testing.T) {
	live := regexp.MustCompile(`\[\w+:|\*iteration:`)
	for _, s := range []string{"[vulnerability:1]", "see [epic:2] now", "[work_item:3]", "[contact:a@b.c]", "[feature_flag:4]", "[wiki_page:home]",
		"*iteration:5", `*iteration:"Sprint 1"`, "x *iteration:6"} {
		got := html.UnescapeString(ForGitLab(EscapeMarkdown(s)))
		if loc := live.FindStringIndex(got); loc != nil {
			t.Errorf("ForGitLab(EscapeMarkdown(%q)) renders to %q: %q is a live GitLab reference", s, got, got[loc[0]:loc[1]])
		}
	}
	if got := dots(ForGitLab(EscapeMarkdown("[vulnerability:1] *iteration:5 [ x ] a*b"))); got != "&#91;·vulnerability:1&#93; &#42;·iteration:5 &#91; x &#93; a&#42;·b" {
		t.Errorf("escaped forms: %q", got)
	}
}

// TestForGitLabLeavesCodeSpans: GitLab resolves no reference inside code,
// so ForGitLab leaves a code span byte for byte (an id "%v1.0" or
// "&#33;12" copies as given) and still makes the same text inert outside
// one. A backtick run opens a span only where CommonMark's does: not
// escaped, closed on its line by a run of the same length, not in an HTML
// block.
func TestForGitLabLeavesCodeSpans(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"`%v1` `&#33;12` `~x` `!12` `$4` `&amp;5` %v1 &#33;12 &amp;5", "`%v1` `&#33;12` `~x` `!12` `$4` `&amp;5` %·v1 &#33;·12 &amp;·5"},
		{"``a`%v1`` ``%v2` %v3", "``a`%v1`` ``%·v2` %·v3"},
		{"\\`%v1` `%v2`", "\\`%·v1` `%·v2`"}, // the 2nd and 3rd backticks pair
		{"\\\\`%v1` %v2", "\\\\`%v1` %·v2"},
		{"`%v1\n%v2`\n`%v3`\n", "`%·v1\n%·v2`\n`%v3`\n"}, // a span is looked for on one line
		{"<details><summary>`%v1`</summary>\n`%v2`\n\n`%v3`", "<details><summary>`%·v1`</summary>\n`%·v2`\n\n`%v3`"},
		{"%`%v1`&#33;`&#33;1`", "%`%v1`&#33;`&#33;1`"},
	} {
		if got := dots(ForGitLab(tt.in)); got != tt.want {
			t.Errorf("ForGitLab(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}

	// Through a report: ids are code spans, copied as given; the query
	// text (escaped, not a span) still has its references made inert.
	m := demoReport(t)
	const qid, doc = "%v1.0", "&#33;12"
	m["regressed"] = []any{qid}
	for _, q := range m["queries"].([]any) {
		q := q.(map[string]any)
		switch q["id"] {
		case "q04":
			q["id"] = qid
			q["query"] = "%v1.0 !12 ~x $4"
			q["lost"] = []any{doc}
			q["moves"].([]any)[0].(map[string]any)["doc"] = doc
		case "q02":
			q["gained"] = []any{"~x", "!12", "$4"}
		}
	}
	raw := ForGitLab(markdownOf(t, m))
	t.Run("cmark-gfm", func(t *testing.T) { cmarkgfm.AssertInertGitLab(t, raw, qid, doc, "%v1.0 !12 ~x $4", "~x", "!12", "$4") })
	note := dots(raw)
	for _, want := range []string{
		"| `" + qid + "` | %·v1.0 &#33;·12 &#126;·x &#36;·4 |",
		"| `" + doc + "` (retrieval miss, rank 1 → —",
		"| `" + qid + "` | `" + doc + "` | 2 |",
		"`~x`, `!12`, `$4` |",
	} {
		if !strings.Contains(note, want) {
			t.Errorf("the GitLab note lacks %q:\n%s", want, note)
		}
	}
}

// markdownOf is the Markdown report of m, a report's JSON as a map, read
// back as an untrusted report is.
func markdownOf(t *testing.T, m map[string]any) string {
	t.Helper()
	r, err := ReadCompareReport(bytes.NewReader(encode(t, m)), "report.json")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteCompareReport(&b, r, Markdown); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
