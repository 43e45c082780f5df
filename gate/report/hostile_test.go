package report

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/internal/cmarkgfm"
)

// hostile is what a fork's job could write into any free-text field of the
// report it uploads.
const hostile = "</details><img src=x onerror=alert(1)>@octocat [x](javascript:alert(1)) <script>alert(2)</script> ::error::x"

// demoReport is a real compare report as JSON, parsed into a generic map
// a test can vandalise.
func demoReport(t testing.TB) map[string]any {
	t.Helper()
	data, err := os.ReadFile("testdata/mixed.golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func encode(t testing.TB, m map[string]any) []byte {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fp64 is a well-formed fingerprint.
var fp64 = "sha256:" + strings.Repeat("0", 64)

// TestHostileReportRefused: a closed field holding anything but one of its
// values, a date that is not a date, a fingerprint name recallgate does not
// write, an id with a line break, a duplicate key or trailing data: the
// report is refused, never rendered.
func TestHostileReportRefused(t *testing.T) {
	query := func(m map[string]any) map[string]any { return m["queries"].([]any)[3].(map[string]any) }
	for name, vandal := range map[string]func(m map[string]any){
		"reason kind": func(m map[string]any) {
			m["reasons"] = []any{"x"}
			m["reason_kinds"] = []any{hostile}
		},
		"waiver expiry": func(m map[string]any) {
			m["waived"] = []any{map[string]any{"id": "q04", "reason": "r", "expires": hostile}}
		},
		"change": func(m map[string]any) { query(m)["change"] = hostile },
		"cause": func(m map[string]any) {
			query(m)["moves"] = []any{map[string]any{"doc": "d", "grade": 1, "base_rank": 1, "head_rank": nil, "cause": hostile}}
		},
		"fingerprint name":   func(m map[string]any) { m["fingerprints"] = map[string]any{hostile: "sha256:00"} },
		"fingerprint":        func(m map[string]any) { m["fingerprints"] = map[string]any{"set": hostile} },
		"rule outcome":       func(m map[string]any) { m["rules"].([]any)[0].(map[string]any)["outcome"] = hostile },
		"head sha":           func(m map[string]any) { m["head_sha"] = hostile },
		"query id":           func(m map[string]any) { query(m)["id"] = "q04\n::error::x" },
		"segment kind":       func(m map[string]any) { m["segments"].([]any)[0].(map[string]any)["kind"] = hostile },
		"unknown field":      func(m map[string]any) { m["extra"] = 1 },
		"gate name":          func(m map[string]any) { m["gate"] = map[string]any{"name": "x -->\n@everyone"} },
		"gate config":        func(m map[string]any) { m["gate"] = map[string]any{"config": "a\n::error::x"} },
		"never retrieved id": func(m map[string]any) { m["never_retrieved"] = []any{"d\n::error::x"} },
		"never retrieved with the corpus known": func(m map[string]any) {
			m["never_retrieved"], m["corpus_known"] = []any{"doc/01"}, true
		},
		"data quality query": func(m map[string]any) {
			m["data_quality"] = []any{map[string]any{"id": "q99", "missing": []any{"a"}, "kept_out": true}}
		},
		"data quality doc": func(m map[string]any) {
			m["data_quality"] = []any{map[string]any{"id": "q04", "missing": []any{"a\n::error::x"}, "kept_out": true}}
		},
		"baseline input": func(m map[string]any) {
			m["baseline"] = map[string]any{"changed": []any{map[string]any{"input": hostile, "baseline": fp64, "now": fp64}}, "unrecorded": []any{}}
		},
		"baseline hash": func(m map[string]any) {
			m["baseline"] = map[string]any{"changed": []any{map[string]any{"input": "set", "baseline": hostile, "now": fp64}}, "unrecorded": []any{}}
		},
		"baseline unrecorded": func(m map[string]any) {
			m["baseline"] = map[string]any{"changed": []any{}, "unrecorded": []any{hostile}}
		},
	} {
		m := demoReport(t)
		vandal(m)
		if _, err := ReadCompareReport(bytes.NewReader(encode(t, m)), "report.json"); err == nil || !strings.HasPrefix(err.Error(), "report.json: ") {
			t.Errorf("%s: %v, want the report refused", name, err)
		}
	}
	good := encode(t, demoReport(t))
	if _, err := ReadCompareReport(bytes.NewReader(good), "report.json"); err != nil {
		t.Fatalf("the untouched report: %v", err)
	}
	// The new keys, well formed, and the retriever tables' names of
	// earlier releases are read.
	m := demoReport(t)
	m["data_quality"] = []any{map[string]any{"id": "q04", "missing": []any{"gone/doc"}, "kept_out": true}}
	m["baseline"] = map[string]any{"changed": []any{map[string]any{"input": "corpus", "baseline": fp64, "now": "sha256:" + strings.Repeat("1", 64)}}, "unrecorded": []any{"retriever"}}
	m["fingerprints"] = map[string]any{"set": fp64, "base_retriever": fp64, "head_retriever": fp64, "corpus": fp64, "policy": fp64, "base_config": fp64, "head_config": fp64}
	if r, err := ReadCompareReport(bytes.NewReader(encode(t, m)), "report.json"); err != nil || len(r.DataQuality) != 1 || len(r.Baseline.Changed) != 1 || len(r.Fingerprints) != 7 {
		t.Fatalf("a report with the new keys: %v %+v", err, r)
	}
	for name, data := range map[string][]byte{
		"duplicate key": append([]byte(`{"verdict":"fail",`), good[1:]...),
		"trailing data": append(append([]byte{}, good...), []byte(`{"verdict":"pass"}`)...),
	} {
		if _, err := ReadCompareReport(bytes.NewReader(data), "report.json"); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestHostileTextEscaped: free text (reasons, notes, health, warnings,
// query text, waiver reasons) is accepted and every renderer escapes it:
// the comment has no raw HTML, no javascript: link, no live mention, and
// the text report no line that starts a workflow command.
func TestHostileTextEscaped(t *testing.T) {
	m := demoReport(t)
	m["reasons"] = []any{hostile}
	m["reason_kinds"] = []any{"fail"}
	failVerdict(m) // a fail reason is a failed rule's
	m["notes"] = []any{hostile}
	m["health"] = []any{hostile}
	m["warnings"] = []any{hostile}
	m["waived"] = []any{map[string]any{"id": "q04", "reason": hostile, "expires": "2027-01-31"}}
	for _, q := range m["queries"].([]any) {
		q.(map[string]any)["query"] = hostile
	}
	r, err := ReadCompareReport(bytes.NewReader(encode(t, m)), "report.json")
	if err != nil {
		t.Fatal(err)
	}
	var md, txt bytes.Buffer
	if err := WriteCompareReport(&md, r, Markdown); err != nil {
		t.Fatal(err)
	}
	if err := WriteCompareReport(&txt, r, Text); err != nil {
		t.Fatal(err)
	}
	body := md.String()
	for _, raw := range []string{"<img", "<script", "</details><img", "](javascript:", "@octocat", "\n::error"} {
		if strings.Contains(body, raw) {
			t.Errorf("the comment carries %q raw", raw)
		}
	}
	t.Run("cmark-gfm", func(t *testing.T) { cmarkgfm.AssertInert(t, body, hostile) })
	if strings.Count(body, "@\u200boctocat") < 5 {
		t.Errorf("the hostile text should appear, inert, in every place it was put:\n%s", body)
	}
	for _, line := range strings.Split(txt.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "::") {
			t.Errorf("text report line starts a workflow command: %q", line)
		}
	}
	// A document id under data quality is an id: a code span in Markdown,
	// inert, with nothing of it outside one.
	m["data_quality"] = []any{map[string]any{"id": "q04", "missing": []any{hostile}, "kept_out": true}}
	if r, err = ReadCompareReport(bytes.NewReader(encode(t, m)), "report.json"); err != nil {
		t.Fatal(err)
	}
	md.Reset()
	if err := WriteCompareReport(&md, r, Markdown); err != nil {
		t.Fatal(err)
	}
	dq, _, _ := strings.Cut(md.String()[strings.Index(md.String(), "**Data quality"):], "\n\n<")
	if out := outsideCodeSpans(dq); strings.Contains(out, "<img") || strings.Contains(out, "@octocat") || !strings.Contains(dq, "`") {
		t.Errorf("data quality's document id is not a code span:\n%s", dq)
	}
	t.Run("cmark-gfm", func(t *testing.T) { cmarkgfm.AssertInert(t, md.String(), hostile) })
}

// FuzzReadAndRender: any bytes read as an untrusted report either are
// refused or render in every format without a raw tag or a live mention
// coming from the input.
func FuzzReadAndRender(f *testing.F) {
	// Small seeds: the fuzzer mutates a large document slowly.
	small := `{"tool":"recallgate","command":"compare","verdict":"fail","reasons":["r @x"],"reason_kinds":["fail"],"depth":{"candidates":2,"context":1},` +
		`"regressed":["q1"],"queries":[{"id":"q1","query":"<b>x</b>","base":{"recall_at_n":1,"docs":["a"]},"head":{"recall_at_n":0,"docs":["b"]},"change":"regressed",` +
		`"moves":[{"doc":"a","grade":1,"base_rank":1,"head_rank":null,"cause":"retrieval-miss"}],"gold":["a"],"grades":{"a":1}}],` +
		`"waived":[{"id":"q1","reason":"w","expires":"2027-01-31"}],"fingerprints":{"set":"sha256:00"},"segments":[{"kind":"auto","name":"short","queries":1}]}`
	f.Add([]byte(small))
	f.Add([]byte(strings.Replace(small, `"r @x"`, `"`+strings.ReplaceAll(hostile, `"`, `\"`)+`"`, 1)))
	f.Add([]byte(strings.Replace(small, `"r @x"`, `"r \u202e www.x.y é@x"`, 1)))
	f.Add([]byte(`{"tool":"recallgate","command":"compare","verdict":"pass","depth":{"candidates":1,"context":1}}`))
	f.Add([]byte(strings.ReplaceAll(small, `"a"`, `"<img src=x onerror=alert(1)> `+"``|"+`"`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ReadCompareReport(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			return
		}
		var md string // rendered last: without cmark-gfm it skips, the other formats checked
		for _, format := range []Format{Markdown, Text, HTML, JUnit, JSON} {
			var b bytes.Buffer
			if err := WriteCompareReport(&b, r, format); err != nil {
				t.Fatalf("%v: %v", format, err)
			}
			if out := outsideCodeSpans(b.String()); format == Markdown && (strings.Contains(out, "<img") || strings.Contains(out, "<script")) {
				t.Fatalf("markdown carries raw HTML from the input outside a code span:\n%s", b.String())
			}
			if format == Markdown {
				md = b.String()
			}
			if format == Markdown || format == Text {
				if i := strings.IndexFunc(b.String(), gate.IsBidiControl); i >= 0 {
					t.Fatalf("%v carries a raw bidi control at byte %d:\n%s", format, i, b.String())
				}
			}
		}
		t.Run("cmark-gfm", func(t *testing.T) { cmarkgfm.AssertInert(t, md, string(data)) })
	})
}

// TestHostileCellsEscapedOnce: ids, documents and text that would read
// falsely, through a report read from an untrusted job, come out in each
// format marked and escaped exactly once (the gold docs lost column
// escaped its ids twice: "doc&amp;#95;04"); in Markdown ids are code
// spans, inert as typed, with invisible characters marked.
func TestHostileCellsEscapedOnce(t *testing.T) {
	m := demoReport(t)
	const id = "q04\u202e_x"
	m["regressed"] = []any{id}
	m["reasons"] = []any{"bad \u202e reason @octocat"}
	m["reason_kinds"] = []any{"fail"}
	failVerdict(m) // a fail reason is a failed rule's
	for _, q := range m["queries"].([]any) {
		q := q.(map[string]any)
		switch q["id"] {
		case "q04":
			q["id"] = id
			q["query"] = "https://evil.example \u2066"
			q["lost"] = []any{"doc_04@octocat"}
			q["moves"].([]any)[0].(map[string]any)["doc"] = "doc_04@octocat"
			q["moves"].([]any)[0].(map[string]any)["took_its_place"] = "www.evil.example/<b>"
		case "q02":
			q["gained"] = []any{"owner/repo#1", "é@octocat"}
		}
	}
	r, err := ReadCompareReport(bytes.NewReader(encode(t, m)), "report.json")
	if err != nil {
		t.Fatal(err)
	}
	render := func(f Format) string {
		var b bytes.Buffer
		if err := WriteCompareReport(&b, r, f); err != nil {
			t.Fatal(err)
		}
		return dots(b.String())
	}
	md, txt, html := render(Markdown), render(Text), render(HTML)
	for _, want := range []string{
		"- **fail:** bad ⟨U+202E⟩ reason @·octocat\n",
		"| `q04⟨U+202E⟩_x` | https·://evil.example ⟨U+2066⟩ | 1.000 → 0.500 | 1.000 → 0.240 | `doc_04@octocat` (retrieval miss, rank 1 → —, replaced by `www.evil.example/<b>`) |\n",
		"| `q02` | ordinary question 2 | 0.000 → 1.000 | 0.000 → 1.000 | `owner/repo#1`, `é@octocat` |\n",
		"| `q04⟨U+202E⟩_x` | `doc_04@octocat` | 2 | 1 → — | retrieval miss | `www.evil.example/<b>` |\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	var raw bytes.Buffer // undotted: the zero-width spaces as GitHub gets them
	if err := WriteCompareReport(&raw, r, Markdown); err != nil {
		t.Fatal(err)
	}
	t.Run("cmark-gfm", func(t *testing.T) {
		cmarkgfm.AssertInert(t, raw.String(), id, "bad \u202e reason @octocat", "https://evil.example \u2066", "doc_04@octocat", "www.evil.example/<b>", "owner/repo#1", "é@octocat")
	})
	if strings.Contains(md, "&amp;#") || strings.Contains(md, "\u202e") || strings.Contains(md, "\u2066") {
		t.Errorf("markdown escapes twice or carries a raw bidi control:\n%s", md)
	}
	for _, want := range []string{"q04⟨U+202E⟩_x", `"https://evil.example ⟨U+2066⟩"`, "bad ⟨U+202E⟩ reason"} {
		if !strings.Contains(txt, want) {
			t.Errorf("text report lacks %q:\n%s", want, txt)
		}
	}
	if !strings.Contains(html, `<div class="fail reason">fail: bad ⟨U&#43;202E⟩ reason @octocat</div>`) || !strings.Contains(html, "e.textContent=vis(String(text))") {
		t.Errorf("HTML report does not mark the reason, or draws without vis:\n%s", html[:min(len(html), 3000)])
	}
}

// TestNumericIDsReadTrue: numeric query and document ids (SciFact's,
// PubMed's) come out of the Markdown report, and its GitLab form, as code
// spans that copy byte for byte: no zero-width space inside "15476777".
func TestNumericIDsReadTrue(t *testing.T) {
	m := demoReport(t)
	const qid, doc = "1547677700", "15476777"
	m["regressed"] = []any{qid}
	// Ids inside recallgate's own sentences (a warning here; reasons and
	// health lines alike) are code spans too.
	m["warnings"] = append(m["warnings"].([]any), "query "+qid+": its gold "+doc+", was not returned.")
	for _, q := range m["queries"].([]any) {
		q := q.(map[string]any)
		if q["id"] == "q04" {
			q["id"] = qid
			q["lost"] = []any{doc}
			q["moves"].([]any)[0].(map[string]any)["doc"] = doc
		}
	}
	md := markdownOf(t, m)
	for name, md := range map[string]string{"github": md, "gitlab": ForGitLab(md)} {
		for _, want := range []string{"| `" + qid + "` |", "| `" + doc + "` (retrieval miss, rank 1 → —", "| `" + qid + "` | `" + doc + "` | 2 |", "- query `" + qid + "`: its gold `" + doc + "`, was not returned."} {
			if !strings.Contains(md, want) {
				t.Errorf("%s: markdown lacks %q:\n%s", name, want, md)
			}
		}
		for _, line := range strings.Split(md, "\n") {
			// The zero-width space falls inside "1547677" itself (every
			// six digits), so look for the id with it taken out.
			if strings.Contains(strings.ReplaceAll(line, "\u200b", ""), "1547677") && strings.Contains(line, "\u200b") {
				t.Errorf("%s: a line with the numeric ids carries a zero-width space: %q", name, line)
			}
		}
	}
}

// outsideCodeSpans is the Markdown with its code spans taken out, as
// CommonMark finds them on a line: a run of backticks opens one, the next
// run of the same length closes it (a run left open is text).
func outsideCodeSpans(md string) string {
	var out strings.Builder
	for _, line := range strings.SplitAfter(md, "\n") {
		for line != "" {
			i := strings.IndexByte(line, '`')
			if i < 0 {
				out.WriteString(line)
				break
			}
			out.WriteString(line[:i])
			n := len(line[i:]) - len(strings.TrimLeft(line[i:], "`"))
			fence, rest := line[i:i+n], line[i+n:]
			end := -1
			for j := 0; j < len(rest); {
				k := j
				for k < len(rest) && rest[k] == '`' {
					k++
				}
				if k-j == n {
					end = j
					break
				}
				j = max(k, j+1)
			}
			if end < 0 {
				out.WriteString(fence)
				line = rest
				continue
			}
			line = rest[end+n:]
		}
	}
	return out.String()
}

// TestListItemTextStartsNoBlock: a health line, warning or note is one
// item of recallgate's lists ("- " and the text), so text that starts
// with a list marker, a thematic break or an indented block would open a
// nested list, a rule or a code block inside it; rendered by GitHub's
// renderer, each stays the item's text, in the comment and the GitLab note.
func TestListItemTextStartsNoBlock(t *testing.T) {
	for _, s := range []string{"- pwned item", "+ pwned item", "* pwned item", "1. pwned list", "7) pwned list", "---", "- - -", "___", "===", "      pwned code", "> pwned quote", "# pwned heading"} {
		t.Run(s, func(t *testing.T) {
			m := demoReport(t)
			m["notes"] = []any{s}
			m["health"] = []any{s}
			m["warnings"] = []any{s}
			md := markdownOf(t, m)
			for name, htm := range map[string]string{"comment": cmarkgfm.AssertInert(t, md, s), "GitLab note": cmarkgfm.AssertInertGitLab(t, ForGitLab(md), s)} {
				if out := cmarkgfm.OutsideCode(htm); strings.Contains(out, "<li>\n<") || strings.Count(out, "<pre>") > strings.Count(md, "```mermaid") {
					t.Errorf("%s: a list item opens a block of its own:\n%s", name, out)
				}
			}
		})
	}
}
