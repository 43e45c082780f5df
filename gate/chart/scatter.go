package chart

// Point is one mark of a Scatter, with an optional interval on each axis.
type Point struct {
	// X and Y place the mark.
	X, Y               float64
	XLo, XHi, YLo, YHi float64 // the intervals, drawn when HasXInterval / HasYInterval
	// HasXInterval and HasYInterval say which of the intervals to draw.
	HasXInterval, HasYInterval bool
	Label                      string // drawn beside the mark
	Title                      string // hover text
	Class                      string // extra CSS class of the mark, e.g. "pass", "fail"
}

// Scatter is a plot of points, e.g. each variant's delta recall@N against
// its delta nDCG@k, with their intervals.
type Scatter struct {
	// Title is drawn above the plot and is the SVG's accessible name;
	// XLabel and YLabel name the axes.
	Title, XLabel, YLabel string
	// Points are the marks; the axes span them and their intervals.
	Points        []Point
	ZeroLines     bool // reference lines at x = 0 and y = 0
	Width, Height int  // 0: 640 × 400
}

// SVG draws the scatter plot. A point with a value that is not finite is
// not drawn; its label is listed in the SVG's <desc>.
func (s Scatter) SVG() string {
	w, h := orDefault(s.Width, 640), orDefault(s.Height, 400)
	var xs, ys []float64
	var drawn []Point
	var skipped []string
	for _, p := range s.Points {
		if !finite(p.X, p.Y) || (p.HasXInterval && !finite(p.XLo, p.XHi)) || (p.HasYInterval && !finite(p.YLo, p.YHi)) {
			skipped = append(skipped, p.Label)
			continue
		}
		drawn = append(drawn, p)
		xs, ys = append(xs, p.X), append(ys, p.Y)
		if p.HasXInterval {
			xs = append(xs, p.XLo, p.XHi)
		}
		if p.HasYInterval {
			ys = append(ys, p.YLo, p.YHi)
		}
	}
	xlo, xhi := span(xs, s.ZeroLines)
	ylo, yhi := span(ys, s.ZeroLines)
	sx := scale{xlo, xhi, 60, float64(w) - 20}
	sy := scale{ylo, yhi, float64(h) - 50, 30}
	c := newCanvas(w, h, s.Title, "")
	c.label(float64(w)/2, 16, "middle", s.Title)
	c.yAxis(sy, sx.a, sx.b, s.YLabel)
	c.xAxis(sx, sy.a, s.XLabel)
	if s.ZeroLines {
		c.line(sx.at(0), sy.a, sx.at(0), sy.b, "zero")
		c.line(sx.a, sy.at(0), sx.b, sy.at(0), "zero")
	}
	// The marks first, then their labels, each placed clear of the
	// labels before it (two variants of nearly the same latency and
	// recall would otherwise print one label over the other).
	lp := labelPlacer{w: float64(w), h: float64(h)}
	for _, p := range drawn {
		x, y := sx.at(p.X), sy.at(p.Y)
		if p.HasXInterval {
			c.line(sx.at(p.XLo), y, sx.at(p.XHi), y, "interval")
		}
		if p.HasYInterval {
			c.line(x, sy.at(p.YLo), x, sy.at(p.YHi), "interval")
		}
		c.circle(x, y, 5, p.Class, p.Title)
	}
	for _, p := range drawn {
		at := lp.place(sx.at(p.X), sy.at(p.Y), p.Label)
		c.label(at.x, at.y, at.anchor, p.Label)
	}
	c.desc(skipped)
	return c.done()
}
