package chart

// Row is one dumbbell: a value before and after.
type Row struct {
	// Label names the row beside the axis (cut to 16 characters), e.g. a
	// query id.
	Label string
	// From and To are the values before and after, e.g. base and head.
	From, To float64
	Title    string // hover text
	Class    string // e.g. "regressed", "improved", "same"
}

// Dumbbell draws rows of from → to on one axis, e.g. base against head
// recall@N per query.
type Dumbbell struct {
	// Title is drawn above the chart and is the SVG's accessible name;
	// FromName and ToName name the two sides in the legend ("base",
	// "head"); XLabel names the axis.
	Title, FromName, ToName, XLabel string
	// Rows are drawn top to bottom in the order given.
	Rows     []Row
	Min, Max float64 // both 0: 0 … 1
	Width    int     // 0: 640; the height follows the rows
}

// rowHeight is the height of one row in pixels.
const rowHeight = 18

// SVG draws the chart: per row a hollow circle at From, a filled mark at To
// and the line between them. A row with a value that is not finite is not
// drawn; its label is listed in the SVG's <desc>.
func (d Dumbbell) SVG() string {
	w := orDefault(d.Width, 640)
	lo, hi := d.Min, d.Max
	if lo == 0 && hi == 0 {
		hi = 1
	}
	var rows []Row
	var skipped []string
	for _, r := range d.Rows {
		if !finite(r.From, r.To) {
			skipped = append(skipped, r.Label)
			continue
		}
		rows = append(rows, r)
	}
	h := 60 + rowHeight*len(rows) + 40
	sx := scale{lo, hi, 120, float64(w) - 20}
	c := newCanvas(w, h, d.Title, `.chart .from{fill:#fff;stroke:#4a6fa5;stroke-width:1.5}.chart .same{fill:#4a6fa5}.chart .bar{stroke:#aaa;stroke-width:2}.chart .regressed.bar{stroke:#c62828}.chart .improved.bar{stroke:#2e7d32}`)
	c.label(float64(w)/2, 16, "middle", d.Title)
	c.label(sx.a, 36, "start", "○ "+d.FromName+"   ● "+d.ToName)
	bottom := float64(50 + rowHeight*len(rows))
	for _, t := range ticks(lo, hi, 5) {
		c.line(sx.at(t), 44, sx.at(t), bottom, "grid")
	}
	for i, r := range rows {
		y := float64(56 + rowHeight*i)
		c.label(sx.a-8, y+4, "end", shorten(r.Label, 16))
		c.line(sx.at(r.From), y, sx.at(r.To), y, r.Class+" bar")
		c.b.WriteString(`<circle class="from" cx="` + num(sx.at(r.From)) + `" cy="` + num(y) + `" r="4"/>` + "\n")
		c.circle(sx.at(r.To), y, 4.5, r.Class, r.Title)
	}
	c.xAxis(sx, bottom, d.XLabel)
	c.desc(skipped)
	return c.done()
}

// shorten cuts a label to at most n characters with an ellipsis, so a long
// one stays inside the chart (the mark's title carries it whole).
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
