package chart

import (
	"encoding/xml"
	"flag"
	"html"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test ./gate/chart -update to accept):\n%s", name, got)
	}
}

// wellFormed parses svg as XML, so an escape that broke the markup fails.
func wellFormed(t *testing.T, svg string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(svg))
	for {
		_, err := d.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, svg)
		}
	}
}

func marks(svg string) int { return strings.Count(svg, `class="mark`) }

func TestScatterGolden(t *testing.T) {
	svg := Scatter{
		Title: "variants against the baseline", XLabel: "Δ recall@5", YLabel: "Δ nDCG@3", ZeroLines: true,
		Points: []Point{
			{X: -0.023, Y: -0.01, XLo: -0.06, XHi: 0.01, YLo: -0.05, YHi: 0.03, HasXInterval: true, HasYInterval: true, Label: "chunked", Title: "chunked: p = 0.750", Class: "fail"},
			{X: 0, Y: 0, Label: "same", Title: "same: no change", Class: "pass"},
			{X: math.NaN(), Y: 0, Label: "broken"},
		},
	}.SVG()
	wellFormed(t, svg)
	if marks(svg) != 2 {
		t.Errorf("%d marks, want 2 (the NaN point is not drawn)", marks(svg))
	}
	if !strings.Contains(svg, "<desc>not drawn (no value): broken</desc>") {
		t.Errorf("the point without a value is not named in <desc>:\n%s", svg)
	}
	golden(t, "scatter.golden.svg", svg)
}

func TestLinesGolden(t *testing.T) {
	svg := Lines{
		Title: "recall over time", YLabel: "mean",
		XLabels: []string{"12-01", "12-02", "12-03", "12-04"},
		Series: []LineSeries{
			{Name: "recall@5", Class: "recall", Points: []LinePoint{{Value: 0.8, Class: "pass", Title: "abc 12-01"}, {Gap: true, Class: "error", Title: "12-02: could not run"}, {Value: 0.7, Class: "fail", Title: "def 12-03"}, {Value: 0.75, Class: "pass"}}},
			{Name: "nDCG@3", Class: "ndcg", Points: []LinePoint{{Value: 0.6}, {Gap: true, Class: "error", Title: "12-02: could not run"}, {Value: 0.5}, {Value: 0.55}}},
		},
		Breaks: []Break{{Index: 3, Label: "set changed"}, {Index: 0, Label: "ignored"}},
	}.SVG()
	wellFormed(t, svg)
	// Three values in each series, and the error entry's one mark on the axis.
	if marks(svg) != 7 || strings.Count(svg, `class="mark gap error"`) != 1 || !strings.Contains(svg, "<title>12-02: could not run</title>") {
		t.Errorf("%d marks, want 7: three per series and one for the gap\n%s", marks(svg), svg)
	}
	// The gap splits the path in two: two moves, one line segment.
	if !strings.Contains(svg, `d="M60.0 76.0 M486.7 99.0 L700.0 87.5"`) {
		t.Errorf("the gap did not break the line:\n%s", svg)
	}
	if strings.Count(svg, `<line class="break"`) != 1 {
		t.Errorf("want one break line (index 0 is not a break)")
	}
	golden(t, "lines.golden.svg", svg)
}

func TestDumbbellGolden(t *testing.T) {
	svg := Dumbbell{
		Title: "recall@5 per query", FromName: "base", ToName: "head", XLabel: "recall@5",
		Rows: []Row{
			{Label: "q10", From: 1, To: 0.5, Class: "regressed", Title: "q10: 1.000 → 0.500"},
			{Label: "q04", From: 0.5, To: 1, Class: "improved", Title: "q04: 0.500 → 1.000"},
			{Label: "q01", From: 1, To: 1, Class: "same", Title: "q01: 1.000 → 1.000"},
			{Label: "a-very-long-query-id-indeed", From: 0, To: 0, Class: "same", Title: "a-very-long-query-id-indeed: 0.000 → 0.000"},
		},
	}.SVG()
	wellFormed(t, svg)
	if marks(svg) != 4 {
		t.Errorf("%d marks, want 4", marks(svg))
	}
	if !strings.Contains(svg, ">a-very-long-que…</text>") || !strings.Contains(svg, "<title>a-very-long-query-id-indeed: 0.000 → 0.000</title>") {
		t.Errorf("a long label is not shortened in the chart and whole in its title:\n%s", svg)
	}
	if !strings.Contains(svg, `class="regressed bar"`) || !strings.Contains(svg, `class="mark improved"`) {
		t.Errorf("a row's class lost its separate names:\n%s", svg)
	}
	golden(t, "dumbbell.golden.svg", svg)
}

// TestHostileTextInert: labels, titles and classes from a pull request
// cannot add elements, scripts or attributes, and invisible characters show.
func TestHostileTextInert(t *testing.T) {
	hostile := `</title><script>alert(1)</script><a href="javascript:x">` + "\u202e" + `evil" onload="x` + "\x00\x1b\xff"
	svgs := []string{
		Scatter{Title: hostile, XLabel: hostile, YLabel: hostile, Points: []Point{{X: 1, Y: 1, Label: hostile, Title: hostile, Class: hostile}}}.SVG(),
		Lines{Title: hostile, YLabel: hostile, XLabels: []string{hostile, hostile}, Series: []LineSeries{{Name: hostile, Class: hostile, Points: []LinePoint{{Value: 0.5, Title: hostile, Class: hostile}, {Gap: true}}}}, Breaks: []Break{{Index: 1, Label: hostile}}}.SVG(),
		Dumbbell{Title: hostile, FromName: hostile, ToName: hostile, XLabel: hostile, Rows: []Row{{Label: hostile, From: 0, To: 1, Title: hostile, Class: hostile}}}.SVG(),
	}
	for i, svg := range svgs {
		wellFormed(t, svg)
		for _, bad := range []string{"<script", "<a ", `onload="`, `href="`, "\u202e", "\x00", "\x1b", "\xff"} {
			if strings.Contains(svg, bad) {
				t.Errorf("chart %d carries %q:\n%s", i, bad, svg)
			}
		}
		if !strings.Contains(svg, "⟨U+202E⟩") {
			t.Errorf("chart %d hides the bidi override", i)
		}
	}
}

func TestTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		n      int
		want   []float64
	}{
		{0, 1, 5, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},
		{-0.06, 0.04, 5, []float64{-0.06, -0.04, -0.02, 0, 0.02, 0.04}},
		{0, 100, 4, []float64{0, 25, 50, 75, 100}},
		{3, 3, 5, []float64{3}},
	} {
		got := ticks(c.lo, c.hi, c.n)
		for i := range got {
			got[i] = math.Round(got[i]*1e9) / 1e9
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("ticks(%v, %v, %d) = %v, want %v", c.lo, c.hi, c.n, got, c.want)
		}
	}
	if tickLabel(-0.0) != "0" || tickLabel(0.25) != "0.25" || tickLabel(10) != "10" {
		t.Errorf("tickLabel: %q %q %q", tickLabel(-0.0), tickLabel(0.25), tickLabel(10))
	}
}

// BenchmarkLines10000 draws a history of 10,000 entries in two series.
func BenchmarkLines10000(b *testing.B) {
	l := Lines{Title: "history", XLabels: make([]string, 10000), Series: []LineSeries{{Name: "a"}, {Name: "b"}}}
	for s := range l.Series {
		l.Series[s].Points = make([]LinePoint, 10000)
		for i := range l.Series[s].Points {
			l.Series[s].Points[i] = LinePoint{Value: float64(i%100) / 100, Title: "entry", Class: "pass"}
		}
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = l.SVG()
	}
}

// TestScatterLabelsAvoidEachOther: the experiment page's latency chart
// with two variants of nearly the same p95 latency and Δ recall: each
// label is placed clear of the others and inside the canvas (the
// second goes below its mark), where both used to be drawn up and to the
// right of their marks, one over the other.
func TestScatterLabelsAvoidEachOther(t *testing.T) {
	svg := Scatter{
		Title: "Latency and Δ recall@50 per variant (the baseline at 0)", XLabel: "p95 latency per query (ms)", YLabel: "Δ recall@50", ZeroLines: true,
		Points: []Point{
			{X: 1.20, Y: 0, Label: "baseline (baseline)", Class: "baseline"},
			{X: 1.21, Y: 0.002, Label: "stemmed", Class: "pass"},
			{X: 1.22, Y: 0.001, Label: "title-boost", Class: "pass"},
			{X: 3.0, Y: -0.02, Label: "chunked-at-the-right-edge", Class: "fail"},
		},
	}.SVG()
	wellFormed(t, svg)
	re := regexp.MustCompile(`<text x="([-0-9.]+)" y="([-0-9.]+)" text-anchor="(start|end)">([^<]*)</text>`)
	var boxes []box
	var names []string
	for _, m := range re.FindAllStringSubmatch(svg, -1) {
		if !strings.Contains("baseline (baseline) stemmed title-boost chunked-at-the-right-edge", m[4]) {
			continue // axis ticks and captions
		}
		x, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.ParseFloat(m[2], 64)
		b := boxOf(x, y, m[3], html.UnescapeString(m[4]))
		if b.x0 < 0 || b.x1 > 640 || b.y0 < 0 || b.y1 > 400 {
			t.Errorf("label %q at %v leaves the canvas", m[4], b)
		}
		for i, o := range boxes {
			if o.overlap(b) > 0 {
				t.Errorf("label %q overlaps label %q", m[4], names[i])
			}
		}
		boxes, names = append(boxes, b), append(names, m[4])
	}
	if len(boxes) != 4 {
		t.Fatalf("found %d point labels, want 4:\n%s", len(boxes), svg)
	}
	golden(t, "scatter-labels.golden.svg", svg)
}
