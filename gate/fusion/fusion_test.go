package fusion

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
)

// The three queries of the hand-computed tables, two inputs each.
//
// q1: A holds a (two chunks: the first counts), b, c; B holds b, d, a. c
// is missing from B and d from A.
// q2: a tie: A ranks x over y and B y over x, at equal scores.
// q3: B returned nothing: every document is missing from it.
var (
	q1 = [][]gate.Hit{
		{{Doc: "a", Chunk: "a#1", Score: 3}, {Doc: "a", Chunk: "a#2", Score: 2.5}, {Doc: "b", Score: 2}, {Doc: "c", Score: 1}},
		{{Doc: "b", Score: 10}, {Doc: "d", Score: 6}, {Doc: "a", Score: 2}},
	}
	q2 = [][]gate.Hit{
		{{Doc: "x", Score: 5}, {Doc: "y", Score: 5}},
		{{Doc: "y", Score: 1}, {Doc: "x", Score: 1}},
	}
	q3 = [][]gate.Hit{
		{{Doc: "p", Score: 4}, {Doc: "q", Score: 2}},
		{},
	}
)

// z is the z-score of the top of three equally spaced scores: 1/sqrt(2/3).
var z = 1 / math.Sqrt(2.0/3)

type fused struct {
	doc   string
	score float64
}

func TestFuseHandComputed(t *testing.T) {
	w := []float64{0.75, 0.25}
	cases := []struct {
		name   string
		s      Setting
		hits   [][]gate.Hit
		expect []fused
	}{
		// q1. Normalised: minmax A a1 b.5 c0, B b1 d.5 a0; zmuv A a z b0
		// c −z, B b z d0 a −z; rank A a1 b⅔ c⅓, B b1 d⅔ a⅓; none the
		// raw scores. The floors (a missing document's score): minmax 0
		// and 0, zmuv −z and −z, rank ⅓ and ⅓, none 1 and 2.
		{"q1 rrf k60", Setting{Method: RRF, K: 60}, q1, []fused{{"b", 1.0/61 + 1.0/62}, {"a", 1.0/61 + 1.0/63}, {"d", 1.0 / 62}, {"c", 1.0 / 63}}},
		{"q1 rrf k1 weighted", Setting{Method: RRF, K: 1, Weights: []float64{0.25, 0.75}}, q1, []fused{{"b", 0.25/3 + 0.75/2}, {"a", 0.25/2 + 0.75/4}, {"d", 0.75 / 3}, {"c", 0.25 / 4}}},
		{"q1 combsum minmax", Setting{Method: CombSUM, Norm: MinMax}, q1, []fused{{"b", 1.5}, {"a", 1}, {"d", 0.5}, {"c", 0}}},
		{"q1 combsum zmuv", Setting{Method: CombSUM, Norm: ZMUV}, q1, []fused{{"b", z}, {"a", 0}, {"d", -z}, {"c", -2 * z}}},
		{"q1 combsum rank", Setting{Method: CombSUM, Norm: Rank}, q1, []fused{{"b", 5.0 / 3}, {"a", 4.0 / 3}, {"d", 1}, {"c", 2.0 / 3}}},
		{"q1 combsum none", Setting{Method: CombSUM, Norm: None}, q1, []fused{{"b", 12}, {"d", 7}, {"a", 5}, {"c", 3}}},
		{"q1 combmnz minmax", Setting{Method: CombMNZ, Norm: MinMax}, q1, []fused{{"b", 3}, {"a", 2}, {"d", 0.5}, {"c", 0}}},
		{"q1 combmnz zmuv", Setting{Method: CombMNZ, Norm: ZMUV}, q1, []fused{{"b", 2 * z}, {"a", 0}, {"d", -z}, {"c", -2 * z}}},
		{"q1 combmnz rank", Setting{Method: CombMNZ, Norm: Rank}, q1, []fused{{"b", 10.0 / 3}, {"a", 8.0 / 3}, {"d", 1}, {"c", 2.0 / 3}}},
		{"q1 combmnz none", Setting{Method: CombMNZ, Norm: None}, q1, []fused{{"b", 24}, {"a", 10}, {"d", 7}, {"c", 3}}},
		// combmax ties a and b at the top under three norms: by id.
		{"q1 combmax minmax", Setting{Method: CombMAX, Norm: MinMax}, q1, []fused{{"a", 1}, {"b", 1}, {"d", 0.5}, {"c", 0}}},
		{"q1 combmax zmuv", Setting{Method: CombMAX, Norm: ZMUV}, q1, []fused{{"a", z}, {"b", z}, {"d", 0}, {"c", -z}}},
		{"q1 combmax rank", Setting{Method: CombMAX, Norm: Rank}, q1, []fused{{"a", 1}, {"b", 1}, {"d", 2.0 / 3}, {"c", 1.0 / 3}}},
		{"q1 combmax none", Setting{Method: CombMAX, Norm: None}, q1, []fused{{"b", 10}, {"d", 6}, {"a", 3}, {"c", 2}}},
		{"q1 wsum minmax", Setting{Method: WSum, Norm: MinMax, Weights: w}, q1, []fused{{"a", 0.75}, {"b", 0.625}, {"d", 0.125}, {"c", 0}}},
		{"q1 wsum zmuv", Setting{Method: WSum, Norm: ZMUV, Weights: w}, q1, []fused{{"a", 0.5 * z}, {"b", 0.25 * z}, {"d", -0.75 * z}, {"c", -z}}},
		{"q1 wsum rank", Setting{Method: WSum, Norm: Rank, Weights: w}, q1, []fused{{"a", 0.75 + 0.25/3}, {"b", 0.5 + 0.25}, {"d", 0.75/3 + 0.25*2/3}, {"c", 0.75/3 + 0.25/3}}},
		{"q1 wsum none", Setting{Method: WSum, Norm: None, Weights: w}, q1, []fused{{"b", 4}, {"a", 2.75}, {"d", 2.25}, {"c", 1.25}}},
		// q2: every method ties x and y; the id decides.
		{"q2 rrf", Setting{Method: RRF, K: 60}, q2, []fused{{"x", 1.0/61 + 1.0/62}, {"y", 1.0/61 + 1.0/62}}},
		{"q2 combsum minmax", Setting{Method: CombSUM, Norm: MinMax}, q2, []fused{{"x", 2}, {"y", 2}}},
		{"q2 combsum zmuv", Setting{Method: CombSUM, Norm: ZMUV}, q2, []fused{{"x", 0}, {"y", 0}}},
		{"q2 combmnz rank", Setting{Method: CombMNZ, Norm: Rank}, q2, []fused{{"x", 3}, {"y", 3}}},
		{"q2 combmax none", Setting{Method: CombMAX, Norm: None}, q2, []fused{{"x", 5}, {"y", 5}}},
		{"q2 wsum rank", Setting{Method: WSum, Norm: Rank, Weights: []float64{0.5, 0.5}}, q2, []fused{{"x", 0.75}, {"y", 0.75}}},
		// q3: B is empty: rrf takes nothing from it, a score method its
		// floor, 0 for an empty list.
		{"q3 rrf", Setting{Method: RRF, K: 60}, q3, []fused{{"p", 1.0 / 61}, {"q", 1.0 / 62}}},
		{"q3 combmnz minmax", Setting{Method: CombMNZ, Norm: MinMax}, q3, []fused{{"p", 1}, {"q", 0}}},
		{"q3 combsum zmuv", Setting{Method: CombSUM, Norm: ZMUV}, q3, []fused{{"p", 1}, {"q", -1}}},
		{"q3 wsum none", Setting{Method: WSum, Norm: None, Weights: w}, q3, []fused{{"p", 3}, {"q", 1.5}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Fuse(c.s, c.hits, 10)
			if len(got) != len(c.expect) {
				t.Fatalf("got %d documents %v, want %v", len(got), got, c.expect)
			}
			for i, e := range c.expect {
				if got[i].Doc != e.doc || math.Abs(got[i].Score-e.score) > 1e-9 {
					t.Errorf("rank %d: got %s %.6f, want %s %.6f", i+1, got[i].Doc, got[i].Score, e.doc, e.score)
				}
			}
		})
	}
}

// TestFuseCutsToN: each input is cut to its first n documents before it
// is fused (c, A's third, never enters; a's second chunk is not a
// document), and so is the fused list; a fused hit is the first input's
// first hit of the document.
func TestFuseCutsToN(t *testing.T) {
	got := Fuse(Setting{Method: CombSUM, Norm: MinMax}, q1, 2)
	// A cut to a, b (minmax a1 b0); B cut to b, d (b1 d0): a 1+0, b 0+1,
	// d 0+0.
	if len(got) != 2 || got[0].Doc != "a" || got[1].Doc != "b" || got[0].Score != 1 || got[1].Score != 1 {
		t.Fatalf("got %v, want a 1, b 1", got)
	}
	if got[0].Chunk != "a#1" {
		t.Errorf("a's hit is chunk %q, want the first, a#1", got[0].Chunk)
	}
}

func TestGrid(t *testing.T) {
	g, err := Grid(2, 0.25)
	if err != nil {
		t.Fatal(err)
	}
	want := "[[0 1] [0.25 0.75] [0.5 0.5] [0.75 0.25] [1 0]]"
	if got := strings.ReplaceAll(strings.TrimSpace(sprint(g)), "\n", " "); got != want {
		t.Errorf("grid: %s, want %s", got, want)
	}
	for _, c := range []struct {
		dims int
		step float64
		n    int
	}{{2, 0.1, 11}, {3, 0.1, 66}, {3, 0.5, 6}, {2, 0.25, 5}} {
		if got := GridSize(c.dims, c.step); got != c.n {
			t.Errorf("GridSize(%d, %v) = %d, want %d", c.dims, c.step, got, c.n)
		}
		g, _ := Grid(c.dims, c.step)
		if len(g) != c.n {
			t.Errorf("Grid(%d, %v) has %d points, want %d", c.dims, c.step, len(g), c.n)
		}
	}
	if _, err := Grid(2, 0.3); err == nil {
		t.Error("a step of 0.3 does not divide 1, but was taken")
	}
}

func sprint(g [][]float64) string { return fmt.Sprint(g) }
