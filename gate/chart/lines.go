package chart

import (
	"fmt"
	"strings"
)

// LinePoint is one entry of a series; Gap leaves a hole in the line (a run
// that gave no value, such as an error). A gap with a Title still gets a
// mark, on the x axis, once per entry whatever the number of series, so
// every entry can be found and hovered.
type LinePoint struct {
	// Value is the point's height on the y axis; unused for a gap.
	Value float64
	// Gap: the entry has no value, the line breaks here.
	Gap   bool
	Title string // hover text
	Class string // CSS class of the mark, e.g. the verdict: "pass", "fail", "error"
}

// LineSeries is one line over the entries.
type LineSeries struct {
	// Name is the series' legend entry, e.g. "recall@10"; Class an extra
	// CSS class of its path and marks.
	Name, Class string
	Points      []LinePoint // one per entry of Lines.XLabels
}

// Break marks a vertical line before entry Index, e.g. where the set
// changed and values before and after are not comparable.
type Break struct {
	// Index is the entry the line is drawn before; 0 or past the last
	// entry draws nothing.
	Index int
	// Label says why, beside the line and as its hover text.
	Label string
}

// Lines is a line chart over ordinal entries, e.g. runs over time.
type Lines struct {
	// Title is drawn above the chart and is the SVG's accessible name;
	// YLabel names the y axis.
	Title, YLabel string
	XLabels       []string // one per entry; a few are shown under the axis
	// Series are the lines, drawn in four colours in turn.
	Series []LineSeries
	// Breaks are vertical lines between entries.
	Breaks        []Break
	YMin, YMax    float64 // both 0: 0 … 1
	Width, Height int     // 0: 720 × 320
}

// SVG draws the line chart: a path per series broken at gaps (and at
// values that are not finite), a mark per point that has a value, a
// dashed vertical line per Break and a legend.
func (l Lines) SVG() string {
	w, h := orDefault(l.Width, 720), orDefault(l.Height, 320)
	ylo, yhi := l.YMin, l.YMax
	if ylo == 0 && yhi == 0 {
		yhi = 1
	}
	n := len(l.XLabels)
	sx := scale{0, float64(n - 1), 60, float64(w) - 20}
	sy := scale{ylo, yhi, float64(h) - 60, 30}
	c := newCanvas(w, h, l.Title, `.chart .series{fill:none;stroke-width:1.5}.chart .s0{stroke:#4a6fa5}.chart .s1{stroke:#b26a00}.chart .s2{stroke:#6a1b9a}.chart .s3{stroke:#00838f}.chart .break{stroke:#b26a00;stroke-dasharray:4 3}`)
	c.label(float64(w)/2, 16, "middle", l.Title)
	c.yAxis(sy, sx.a, sx.b, l.YLabel)
	c.line(sx.a, sy.a, sx.b, sy.a, "axis")
	step := 1
	if n > 6 {
		step = (n + 5) / 6
	}
	for i := 0; i < n; i += step {
		anchor := "middle"
		switch {
		case n > 1 && i == 0:
			anchor = "start"
		case n > 1 && i+step >= n && i == n-1:
			anchor = "end"
		}
		c.label(sx.at(float64(i)), sy.a+16, anchor, l.XLabels[i])
	}
	for _, b := range l.Breaks {
		if b.Index <= 0 || b.Index >= n {
			continue
		}
		x := (sx.at(float64(b.Index-1)) + sx.at(float64(b.Index))) / 2
		fmt.Fprintf(&c.b, `<g class="break"><line class="break" x1="%s" y1="%s" x2="%s" y2="%s"/><title>%s</title></g>`+"\n", num(x), num(sy.a), num(x), num(sy.b), text(b.Label))
		c.label(x+3, sy.b+10, "start", b.Label)
	}
	var skipped []string
	gapMarked := map[int]bool{}
	for si, s := range l.Series {
		var d strings.Builder
		pen := false
		for i, p := range s.Points {
			if i >= n {
				break
			}
			if p.Gap || !finite(p.Value) {
				pen = false
				continue
			}
			cmd := "L"
			if !pen {
				cmd = "M"
			}
			fmt.Fprintf(&d, "%s%s %s ", cmd, num(sx.at(float64(i))), num(sy.at(p.Value)))
			pen = true
		}
		if d.Len() > 0 {
			fmt.Fprintf(&c.b, `<path class="series s%d %s" d="%s"/>`+"\n", si%4, class(s.Class), strings.TrimSpace(d.String()))
		}
		for i, p := range s.Points {
			if i >= n {
				break
			}
			if p.Gap || !finite(p.Value) {
				skipped = append(skipped, s.Name+" "+l.XLabels[i])
				if p.Title != "" && !gapMarked[i] {
					gapMarked[i] = true
					x := sx.at(float64(i))
					fmt.Fprintf(&c.b, `<path class="mark gap %s" d="M%s %s l4 -8 l4 8 z"><title>%s</title></path>`+"\n", class(p.Class), num(x-4), num(sy.a), text(p.Title))
				}
				continue
			}
			c.circle(sx.at(float64(i)), sy.at(p.Value), 3.5, s.Class+" "+p.Class, p.Title)
		}
		lx := 70 + float64(si)*160
		fmt.Fprintf(&c.b, `<line class="series s%d %s" x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", si%4, class(s.Class), num(lx), num(float64(h)-14), num(lx+20), num(float64(h)-14))
		c.label(lx+24, float64(h)-10, "start", s.Name)
	}
	c.desc(skipped)
	return c.done()
}
