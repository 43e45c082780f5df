package chart

import "unicode/utf8"

// The size of a label's box as drawn by baseStyle (11px sans-serif): a
// character's width (DejaVu Sans, a wide face, averages 6.6 px there) and
// the line's height, each with a margin.
const (
	charWidth   = 7.0
	labelHeight = 13.0
)

// box is a label's extent on the canvas.
type box struct{ x0, y0, x1, y1 float64 }

func (a box) overlap(b box) float64 {
	w := min(a.x1, b.x1) - max(a.x0, b.x0)
	h := min(a.y1, b.y1) - max(a.y0, b.y0)
	if w <= 0 || h <= 0 {
		return 0
	}
	return w * h
}

// placed is where a label goes: its text's anchor point and anchor.
type placed struct {
	x, y   float64
	anchor string
}

// labelPlacer puts the labels of marks where they overlap neither each
// other nor the canvas's edge when it can: beside its mark, right and up
// first, then the other corners, then further above and below.
type labelPlacer struct {
	w, h   float64
	placed []box
}

// boxOf is the box of s drawn at (x, y) (the baseline) with anchor.
func boxOf(x, y float64, anchor, s string) box {
	w := charWidth * float64(utf8.RuneCountInString(s))
	x0 := x
	switch anchor {
	case "end":
		x0 = x - w
	case "middle":
		x0 = x - w/2
	}
	return box{x0, y - labelHeight + 3, x0 + w, y + 3}
}

// place picks the position of the label s of a mark at (x, y) and keeps
// it, so later labels avoid it. Where every candidate overlaps, the one
// that overlaps least is taken (the first among equals): deterministic.
func (p *labelPlacer) place(x, y float64, s string) placed {
	// Beside the mark first (right and up, right and down, then left),
	// then a line further up or down each time, up to 10 lines away.
	var cands []placed
	for i := 0; i < 20; i++ {
		dy := -8 - labelHeight*float64(i/2)
		if i%2 == 1 {
			dy = 16 + labelHeight*float64(i/2)
		}
		cands = append(cands, placed{x + 8, y + dy, "start"}, placed{x - 8, y + dy, "end"})
	}
	best, bestCost := cands[0], -1.0
	for _, c := range cands {
		b := boxOf(c.x, c.y, c.anchor, s)
		cost := 0.0
		for _, o := range p.placed {
			cost += o.overlap(b)
		}
		// What falls outside the canvas counts as overlap too.
		cost += (b.x1-b.x0)*(b.y1-b.y0) - b.overlap(box{0, 0, p.w, p.h})
		if bestCost < 0 || cost < bestCost {
			best, bestCost = c, cost
		}
		if cost == 0 {
			break
		}
	}
	p.placed = append(p.placed, boxOf(best.x, best.y, best.anchor, s))
	return best
}
