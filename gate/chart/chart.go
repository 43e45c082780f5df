// Package chart draws recallgate's pictures as inline SVG: a scatter plot
// with intervals (an experiment's variants), a line chart over ordinal
// entries (a history of runs) and a dumbbell chart (base against head per
// query). The SVG has no scripts and no external resources, every text in it
// is escaped with its invisible characters shown, and its output depends only
// on its input (fixed number formats), so golden files stay stable.
//
// Every mark is an element whose class starts with "mark" and that carries a
// <title> child (the hover text), so a page counts marks by that class.
package chart

import (
	"fmt"
	"html"
	"math"
	"strings"

	"github.com/recallgate/recallgate/gate"
)

// text escapes s for SVG text or an attribute value: markup characters
// escaped, invisible and control characters shown as ⟨U+XXXX⟩ (gate.Visible),
// invalid UTF-8 replaced.
func text(s string) string {
	return html.EscapeString(strings.ToValidUTF8(gate.Visible(s), "\uFFFD"))
}

// class keeps the letters, digits, '-' and '_' of each space-separated CSS
// class name, so a caller's class cannot leave the attribute.
func class(s string) string {
	names := strings.Fields(s)
	for i, n := range names {
		names[i] = strings.Map(func(r rune) rune {
			switch {
			case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
				return r
			}
			return -1
		}, n)
	}
	return strings.Join(strings.Fields(strings.Join(names, " ")), " ")
}

// num formats a coordinate with one decimal.
func num(v float64) string { return fmt.Sprintf("%.1f", v) }

// finite reports whether every v is a finite number.
func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// scale maps [lo, hi] onto [a, b] (a degenerate range maps to the middle).
type scale struct{ lo, hi, a, b float64 }

func (s scale) at(v float64) float64 {
	if s.hi == s.lo {
		return (s.a + s.b) / 2
	}
	return s.a + (v-s.lo)/(s.hi-s.lo)*(s.b-s.a)
}

// ticks are up to n round values covering [lo, hi].
func ticks(lo, hi float64, n int) []float64 {
	if !(hi > lo) {
		return []float64{lo}
	}
	raw := (hi - lo) / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var out []float64
	for v := math.Ceil(lo/step-1e-9) * step; v <= hi+step*1e-9; v += step {
		out = append(out, math.Round(v/step)*step)
	}
	return out
}

// tickLabel formats a tick value with as few decimals as it needs (at most 3).
func tickLabel(v float64) string {
	s := fmt.Sprintf("%.3f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		s = "0"
	}
	return s
}

// canvas collects the SVG's elements.
type canvas struct {
	b    strings.Builder
	w, h int
}

func newCanvas(w, h int, title, style string) *canvas {
	c := &canvas{w: w, h: h}
	fmt.Fprintf(&c.b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" aria-label="%s" viewBox="0 0 %d %d" width="%d" height="%d">`+"\n", text(title), w, h, w, h)
	fmt.Fprintf(&c.b, "<title>%s</title>\n", text(title))
	c.b.WriteString("<style>" + baseStyle + style + "</style>\n")
	return c
}

// baseStyle colours the marks by the classes recallgate's callers use.
const baseStyle = `.chart text{font:11px sans-serif;fill:#333}.chart .axis{stroke:#888;stroke-width:1}.chart .grid{stroke:#ddd;stroke-width:1}` +
	`.chart .zero{stroke:#999;stroke-dasharray:3 3}.chart .mark{fill:#4a6fa5;stroke:#fff}.chart .pass,.chart .improved{fill:#2e7d32;stroke:#2e7d32}` +
	`.chart .fail,.chart .regressed{fill:#c62828;stroke:#c62828}.chart .error{fill:#888;stroke:#888}.chart .interval{stroke:#4a6fa5;stroke-width:1.5}`

func (c *canvas) line(x1, y1, x2, y2 float64, cls string) {
	fmt.Fprintf(&c.b, `<line class="%s" x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", class(cls), num(x1), num(y1), num(x2), num(y2))
}

func (c *canvas) label(x, y float64, anchor, s string) {
	fmt.Fprintf(&c.b, `<text x="%s" y="%s" text-anchor="%s">%s</text>`+"\n", num(x), num(y), anchor, text(s))
}

// circle is one mark with its hover title.
func (c *canvas) circle(x, y, r float64, cls, title string) {
	fmt.Fprintf(&c.b, `<circle class="mark %s" cx="%s" cy="%s" r="%s"><title>%s</title></circle>`+"\n", class(cls), num(x), num(y), num(r), text(title))
}

// desc lists what was left out of the picture, so a reader of the SVG's text sees it.
func (c *canvas) desc(skipped []string) {
	if len(skipped) > 0 {
		fmt.Fprintf(&c.b, "<desc>not drawn (no value): %s</desc>\n", text(strings.Join(skipped, ", ")))
	}
}

func (c *canvas) done() string {
	c.b.WriteString("</svg>\n")
	return c.b.String()
}

// xAxis draws the x axis at y with ticks over sx and a caption.
func (c *canvas) xAxis(sx scale, y float64, caption string) {
	c.line(sx.a, y, sx.b, y, "axis")
	for _, t := range ticks(sx.lo, sx.hi, 5) {
		c.line(sx.at(t), y, sx.at(t), y+4, "axis")
		c.label(sx.at(t), y+16, "middle", tickLabel(t))
	}
	c.label((sx.a+sx.b)/2, y+32, "middle", caption)
}

// yAxis draws the y axis at x with grid lines over sy and a caption.
func (c *canvas) yAxis(sy scale, x, right float64, caption string) {
	c.line(x, sy.a, x, sy.b, "axis")
	for _, t := range ticks(sy.lo, sy.hi, 5) {
		c.line(x, sy.at(t), right, sy.at(t), "grid")
		c.label(x-6, sy.at(t)+4, "end", tickLabel(t))
	}
	fmt.Fprintf(&c.b, `<text x="14" y="%s" text-anchor="middle" transform="rotate(-90 14 %s)">%s</text>`+"\n", num((sy.a+sy.b)/2), num((sy.a+sy.b)/2), text(caption))
}

// span is the range of vs widened by a margin, holding 0 when withZero.
func span(vs []float64, withZero bool) (float64, float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	if withZero {
		lo, hi = 0, 0
	}
	for _, v := range vs {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if math.IsInf(lo, 0) {
		return 0, 1
	}
	pad := (hi - lo) * 0.08
	if pad == 0 {
		pad = 0.05
	}
	return lo - pad, hi + pad
}

func orDefault(v, d int) int {
	if v <= 0 {
		return d
	}
	return v
}
