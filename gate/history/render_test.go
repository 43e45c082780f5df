package history

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/recallgate/recallgate/internal/cmarkgfm"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func render(t testing.TB, entries []Entry, f Format) string {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, entries, f); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// drifted is a gate's week: two runs on set A, an error, then the set
// changed (B) and two runs on it.
func drifted() []Entry {
	return []Entry{
		FromReport(run("search", c1, setA, "pass", 0.9, 0.8, "a"), day(1)),
		FromReport(run("search", c1, setA, "fail", 0.7, 0.6, "b"), day(2)),
		FromReport(failed("search", c1, "connection refused"), day(3)),
		FromReport(run("search", c2, setB, "pass", 0.6, 0.5, "c"), day(4)),
		FromReport(run("search", c2, setB, "pass", 0.65, 0.55, "d"), day(5)),
	}
}

// TestRenderMarksTheSetChange: where the set fingerprint changed, the HTML
// chart draws a break before that run and the Markdown's Mermaid chart
// starts there; every run has a mark in each line, coloured by its
// verdict, and the error is a gap with no value and one mark on the axis.
func TestRenderMarksTheSetChange(t *testing.T) {
	page := render(t, drifted(), HTML)
	svg := regexp.MustCompile(`(?s)<svg.*</svg>`).FindString(page)
	if n := strings.Count(svg, `<g class="break">`); n != 1 || !strings.Contains(svg, "<title>set changed</title>") {
		t.Errorf("%d breaks in the chart, want one titled set changed:\n%s", n, svg)
	}
	// The break is drawn between entry 3 (the error, x = 380) and entry 4
	// (x = 540) of five on the 60 … 700 axis: at x = 460.
	if !strings.Contains(svg, `<line class="break" x1="460.0"`) {
		t.Errorf("the break is not between the error and the first run on set B:\n%s", svg)
	}
	marks := regexp.MustCompile(`<circle class="mark (recall|ndcg) (pass|fail|error)"`).FindAllStringSubmatch(svg, -1)
	var got []string
	for _, m := range marks {
		got = append(got, m[1]+" "+m[2])
	}
	want := "recall pass,recall fail,recall pass,recall pass,ndcg pass,ndcg fail,ndcg pass,ndcg pass"
	if strings.Join(got, ",") != want || strings.Count(svg, `class="mark`) != 9 || strings.Count(svg, `class="mark gap error"`) != 1 {
		t.Errorf("marks %v, want %s", got, want)
	}
	if !strings.Contains(svg, "<title>2026-12-02 02:00 UTC · commit 111111111111 · fail · recall@50 0.700</title>") {
		t.Error("a mark's hover lacks its date, commit, verdict and value")
	}
	if !strings.Contains(svg, "<desc>not drawn (no value): recall@50 2026-12-03, nDCG@5 2026-12-03</desc>") {
		t.Errorf("the error is not listed as a gap:\n%s", svg)
	}

	md := render(t, drifted(), Markdown)
	for _, want := range []string{
		`x-axis ["12-04", "12-05"]`,
		"line [0.600, 0.650]",
		"line [0.500, 0.550]",
		"The set or a depth changed on 2026-12-04: the chart starts there (the runs before are not comparable).",
		"| 2026-12-03 02:00 UTC | `111111111111` | error (exit 3, retrieve) | — | — | — | — | — | — | — | retrieval failed: connection refused |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	// A depth change is a break too.
	e := drifted()[:2]
	*e[1].Candidates = 20
	if svg := render(t, e, HTML); !strings.Contains(svg, "<title>depth changed</title>") {
		t.Error("a depth change is not marked")
	}
}

// TestRenderGolden: the Markdown and JSON of a week, byte for byte
// (go test -update rewrites them).
func TestRenderGolden(t *testing.T) {
	for _, f := range []Format{Markdown, JSON} {
		got := render(t, drifted(), f)
		path := filepath.Join("testdata", "week.golden."+map[Format]string{Markdown: "md", JSON: "json"}[f])
		if *update {
			os.MkdirAll("testdata", 0o755)
			os.WriteFile(path, []byte(got), 0o644)
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test -update creates it)", err)
		}
		if got != string(want) {
			t.Errorf("%s differs from %s:\n%s", f, path, got)
		}
	}
}

// TestJSONReadsBack: the JSON rendering is read back strictly.
func TestJSONReadsBack(t *testing.T) {
	out := render(t, drifted(), JSON)
	d, err := ReadDocument(strings.NewReader(out), "h.json")
	if err != nil || len(d.Entries) != 5 || d.Entries[2].Error == nil || d.Entries[2].RecallAtN != nil {
		t.Fatalf("read back: %v %+v", err, d)
	}
	for _, bad := range []string{strings.Replace(out, `"tool"`, `"extra": 1, "tool"`, 1), strings.Replace(out, `"recall_at_n": 0.6,`, `"recall_at_n": -1,`, 1)} {
		if _, err := ReadDocument(strings.NewReader(bad), "h.json"); err == nil {
			t.Errorf("accepted %.80s", bad)
		}
	}
}

// hostile is a gate label and an error message that try to be markup,
// script, a Mermaid directive, a closed code fence, a reversed filename
// and a table break.
const hostile = "<script>alert(1)</script><img src=x onerror=alert(2)>\"]; %%{init: {'theme':'dark'}}%%\n```\u202egpj.exe | x-axis [\"pwn\"] -->"

// TestRenderHostileTextIsInert: text from a report (a gate's config path,
// an error message) is shown as text in the SVG, the HTML and the
// Markdown: no tag, no script, no directive, bidi controls as marks, and
// nothing of it inside the Mermaid block.
func TestRenderHostileTextIsInert(t *testing.T) {
	gateCfg := strings.ReplaceAll(hostile, "\n", " ") // a config path has no control character
	r := run("", c1, setA, "pass", 0.9, 0.8, "d1")
	r.SetGate(gateCfg, "")
	f := failed("", c1, hostile)
	f.SetGate(gateCfg, "")
	entries := []Entry{FromReport(r, day(1)), FromReport(f, day(2))}
	if entries[0].Gate != gateCfg {
		t.Fatalf("gate %q", entries[0].Gate)
	}
	// What render reads is what Add wrote: the strict reader takes it.
	path := filepath.Join(t.TempDir(), "h.jsonl")
	for _, e := range entries {
		if _, err := Add(path, e); err != nil {
			t.Fatal(err)
		}
	}
	read, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	page := render(t, read, HTML)
	for _, bad := range []string{"<script", "<img", "\u202e", "onerror=alert"} {
		if strings.Contains(strings.ReplaceAll(page, "&lt;img src=x onerror=alert", ""), bad) {
			t.Errorf("the HTML holds %q", bad)
		}
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "⟨U+202E⟩gpj.exe"} {
		if !strings.Contains(page, want) {
			t.Errorf("the HTML lacks %q (the text shown as text)", want)
		}
	}
	svg := regexp.MustCompile(`(?s)<svg.*</svg>`).FindString(page)
	if !strings.Contains(svg, "&lt;script&gt;") || strings.Contains(svg, "<script") {
		t.Error("the SVG does not show the gate's label as text")
	}

	md := render(t, read, Markdown)
	t.Run("cmark-gfm", func(t *testing.T) { cmarkgfm.AssertInert(t, md, hostile, gateCfg) })
	if strings.Contains(md, "<script") || strings.Contains(md, "<img") || strings.Contains(md, "\u202e") || strings.Count(md, "```") != 2 {
		t.Errorf("the Markdown is not inert:\n%s", md)
	}
	block := regexp.MustCompile("(?s)```mermaid\n(.*?)```").FindStringSubmatch(md)
	if block == nil || strings.Contains(block[1], "pwn") || strings.Contains(block[1], "init") || strings.Contains(block[1], "script") {
		t.Errorf("the Mermaid block holds the report's text:\n%s", md)
	}
	if !strings.Contains(md, "### &lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("the heading does not show the gate:\n%s", md)
	}
}

// BenchmarkRender10000 reads a full history (MaxEntries runs of one gate,
// one an hour, every tenth an error, the set changed every thousand) and
// renders its HTML: docs/figures.md records the figure. Besides the wall
// time it reports the process's CPU time per render (cpu-ms/op, from
// getrusage: user and system, GC included), which other programs on a
// shared machine do not inflate.
func BenchmarkRender10000(b *testing.B) {
	path := filepath.Join(b.TempDir(), "history.jsonl")
	var buf bytes.Buffer
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < MaxEntries; i++ {
		var e Entry
		at := start.Add(time.Duration(i) * time.Hour)
		if i%10 == 9 {
			e = FromReport(failed("search", c1, "connection refused"), at)
		} else {
			e = FromReport(run("search", c1, fmt.Sprintf("sha256:%04x", i/1000), "pass", 0.5+float64(i%50)/100, 0.4+float64(i%40)/100, fmt.Sprint(i)), at)
		}
		if err := writeLines(&buf, []Entry{e}); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var before, after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		entries, err := Read(path)
		if err != nil {
			b.Fatal(err)
		}
		if err := Render(io.Discard, entries, HTML); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
}

// TestRenderOneSectionPerGate: a history of two gates draws a chart and a
// table per gate, the gates in name order, each with only its runs.
func TestRenderOneSectionPerGate(t *testing.T) {
	entries := []Entry{
		FromReport(run("search", c1, setA, "pass", 0.9, 0.8, "a"), day(1)),
		FromReport(run("docs", c1, setA, "fail", 0.4, 0.3, "b"), day(2)),
		FromReport(run("search", c2, setA, "pass", 0.95, 0.85, "c"), day(3)),
	}
	page := render(t, entries, HTML)
	sections := regexp.MustCompile(`(?s)<section class="gate">\s*<h2>([^<]*)</h2>.*?</section>`).FindAllStringSubmatch(page, -1)
	if len(sections) != 2 || sections[0][1] != "docs" || sections[1][1] != "search" {
		t.Fatalf("sections %d: %v", len(sections), sections)
	}
	for i, want := range []int{2, 4} {
		if n := strings.Count(sections[i][0], `class="mark`); n != want {
			t.Errorf("%s: %d marks, want %d", sections[i][1], n, want)
		}
	}
	md := render(t, entries, Markdown)
	if !strings.Contains(md, "### docs\n\n1 run, 2026-12-02 … 2026-12-02.") || !strings.Contains(md, "### search\n\n2 runs, 2026-12-01 … 2026-12-03.") {
		t.Errorf("Markdown sections:\n%s", md)
	}
}

// TestRenderMarkdownCapped: a history of 10,000 gates (one run each, one
// an hour: 10 MiB of Markdown whole) renders under MaxMarkdown, below the
// 1 MiB of a GitHub job summary: the gates run most lately, each whole,
// and a note saying how many gates and runs were left out and where they
// are. A history under the cap is drawn whole, with no note.
func TestRenderMarkdownCapped(t *testing.T) {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var entries []Entry
	for i := 0; i < MaxEntries; i++ {
		entries = append(entries, FromReport(run(fmt.Sprintf("gate%05d", i), c1, "sha256:aa", "pass", 0.5, 0.4, "d1"), start.Add(time.Duration(i)*time.Hour)))
	}
	md := render(t, entries, Markdown)
	if len(md) > MaxMarkdown {
		t.Fatalf("%d bytes of Markdown, over MaxMarkdown (%d)", len(md), MaxMarkdown)
	}
	shown := regexp.MustCompile(`(?m)^### gate(\d+)$`).FindAllStringSubmatch(md, -1)
	if len(shown) < 100 {
		t.Fatalf("%d gates shown", len(shown))
	}
	// The newest gates, in label order: gate10000-len(shown) … gate09999.
	for j, m := range shown {
		if want := fmt.Sprintf("%05d", MaxEntries-len(shown)+j); m[1] != want {
			t.Fatalf("section %d is gate%s, want gate%s (the gates run most lately, in label order)", j, m[1], want)
		}
	}
	left := MaxEntries - len(shown)
	lastLeft := start.Add(time.Duration(left-1) * time.Hour).Format("2006-01-02")
	note := fmt.Sprintf("**%d gates not shown** (%d runs, the newest on %s): this summary keeps under 512 KiB (a GitHub job summary takes 1 MiB), so it shows the %d gates run most lately. `recallgate history render --format html` or `--format json` has every gate.", left, left, lastLeft, len(shown))
	if !strings.HasSuffix(md, "\n"+note+"\n") {
		t.Errorf("the Markdown does not end with the note %q:\n%s", note, md[len(md)-600:])
	}
	// Under the cap: every gate, no note.
	small := render(t, entries[:50], Markdown)
	if strings.Count(small, "\n### gate") != 50 || strings.Contains(small, "not shown") {
		t.Errorf("a history of 50 gates is not drawn whole:\n%s", small)
	}
}
