package report

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestHTMLChartDrawsEachQuery: the HTML report's picture is a dumbbell of
// recall@N per query, base to head, in the page itself: a mark per query,
// the flipped ones carrying their change as class, the hover saying both
// values; a query id that is markup or a bidi trick is text in the SVG;
// past ChartRows queries the flipped come first and a caption says so.
func TestHTMLChartDrawsEachQuery(t *testing.T) {
	f := newFixture(t, nil)
	f.head["q03"] = []string{"doc/03"} // recall 1 → 0.5: regressed, its mark at 120 + 0.5 × 500 = 370 px
	f.base["q05"] = []string{"doc/05"} // 0.5 → 1: improved
	r := FromComparison(f.compare(t))
	r.Queries[0].ID = "<script>alert(1)</script>\u202egnp.exe"
	figure := func(r *CompareReport) string {
		var b bytes.Buffer
		if err := WriteCompareReport(&b, r, HTML); err != nil {
			t.Fatal(err)
		}
		return regexp.MustCompile(`(?s)<figure id="chart">.*?</figure>`).FindString(b.String())
	}
	svg := figure(r)
	if n := strings.Count(svg, `class="mark`); n != 10 {
		t.Errorf("%d marks, want one per answerable query (10):\n%s", n, svg)
	}
	for _, want := range []string{
		`<circle class="mark regressed" cx="370.0" cy="92.0" r="4.5"><title>q03: recall@10 1.000 → 0.500 (regressed)</title></circle>`,
		`<title>q05: recall@10 0.500 → 1.000 (improved)</title>`,
		`<circle class="mark same"`,
		`&lt;script&gt;alert(1)&lt;/script&gt;⟨U+202E⟩gnp.exe`,
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("the chart lacks %q:\n%s", want, svg)
		}
	}
	if strings.Contains(svg, "<script") || strings.Contains(svg, "\u202e") {
		t.Error("a query id is live in the chart")
	}

	// 70 queries: the two flipped and the first 58 others, and a caption.
	for i := 11; i <= 70; i++ {
		r.Queries = append(r.Queries, CompareQuery{ID: fmt.Sprintf("q%02d", i), Change: "unchanged"})
	}
	svg = figure(r)
	if n := strings.Count(svg, `class="mark`); n != ChartRows || !strings.Contains(svg, "The chart draws 60 of 70 queries, the flipped ones first") {
		t.Errorf("%d marks in a 70-query chart:\n%s", n, svg)
	}
	first := regexp.MustCompile(`<title>(q\d\d): `).FindAllStringSubmatch(svg, 3)
	if len(first) < 2 || first[0][1] != "q03" || first[1][1] != "q05" {
		t.Errorf("the flipped queries are not drawn first: %v", first)
	}
}
