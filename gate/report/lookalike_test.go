package report

import (
	"bytes"
	"fmt"
	"html"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/setfile"
	"github.com/recallgate/recallgate/internal/cmarkgfm"
)

// lookAlikeKinds are ids that read as the gold d01 and are not it, with
// how every report must show them.
var lookAlikeKinds = []struct{ name, id, shown string }{
	{"trailing space", "d01 ", "d01⟨U+0020⟩"},
	{"leading space", " d01", "⟨U+0020⟩d01"},
	{"zero-width", "d0\u200b1", "d0⟨U+200B⟩1"},
	{"full-width", "\uff44\uff10\uff11", "⟨U+FF44⟩⟨U+FF10⟩⟨U+FF11⟩"},
	{"another script", "\u050101", "⟨U+0501⟩01"}, // Cyrillic komi de: a confusable (UTS #39)
	{"blank-drawn", "d01\u2800", "d01⟨U+2800⟩"},  // the braille blank
}

// lookAlikeComparison is two queries at N = 3, k = 1 (gold d0N 1, z judged
// 0): the base returns the gold first; on q01 the head returns id, z, f:
// the gold d01 leaves the top 3 and id takes its place at rank 1, nobody
// judged it (corpus unknown), or the corpus does not hold it (known).
func lookAlikeComparison(t *testing.T, id string, corpusKnown bool) *gate.Comparison {
	t.Helper()
	set, err := setfile.Parse(strings.NewReader(`{"id":"q01","query":"first","gold":{"d01":1,"z":0}}`+"\n"+`{"id":"q02","query":"second","gold":{"d02":1,"z":0}}`+"\n"), "look-alike.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	d := gate.Depth{Candidates: 3, Context: 1}
	card := func(first []string) *gate.Scorecard {
		sc := gate.NewScorer(set, d)
		for i, q := range set.Queries {
			docs := []string{fmt.Sprintf("d%02d", i+1), "z", "f"}
			if i == 0 {
				docs = first
			}
			var hits []gate.Hit
			for _, doc := range docs {
				hits = append(hits, gate.Hit{Doc: doc})
			}
			if err := sc.Add(gate.Result{ID: q.ID, Hits: hits}); err != nil {
				t.Fatal(err)
			}
		}
		c, err := sc.Card()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	pol := gate.Policy{Thresholds: gate.DefaultThresholds()}
	if corpusKnown {
		pol.Corpus = map[string]bool{"d01": true, "d02": true, "z": true, "f": true}
	}
	c, err := gate.CompareWith(card([]string{"d01", "z", "f"}), card([]string{id, "z", "f"}), pol)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestLookAlikeIDsMarkedEverywhere: wherever a report shows the look-alike
// id (what took the gold's place; "nobody judged", corpus unknown; the
// not-in-corpus line, corpus known) it is marked, in text, JUnit and HTML,
// and in Markdown as GitHub renders it (cmark-gfm): the code span reads
// the marked form, and no code span or text reads as d01 but d01 itself.
func TestLookAlikeIDsMarkedEverywhere(t *testing.T) {
	for _, k := range lookAlikeKinds {
		for _, corpusKnown := range []bool{false, true} {
			name := fmt.Sprintf("%s, corpus known %v", k.name, corpusKnown)
			c := lookAlikeComparison(t, k.id, corpusKnown)
			text := string(render(t, c, Text))
			for _, want := range []string{"replaced by " + k.shown} {
				if !strings.Contains(text, want) {
					t.Errorf("%s: text lacks %q:\n%s", name, want, text)
				}
			}
			if corpusKnown && !strings.Contains(text, "Not in the corpus: returned ids that name no document of it, the head 1 in 1 query ("+k.shown+")") {
				t.Errorf("%s: text lacks the not-in-corpus line with %q:\n%s", name, k.shown, text)
			}
			if !corpusKnown && !strings.Contains(text, "q01  unjudged in head context: "+k.shown+"\n") {
				t.Errorf("%s: text lacks the unjudged line with %q:\n%s", name, k.shown, text)
			}
			// (An id with a space at an end is a substring of ordinary
			// text, "d01 rank"; the others are not.)
			raw := strings.TrimSpace(k.id) == k.id
			if raw && strings.Contains(text, k.id) {
				t.Errorf("%s: text shows the id %q unmarked:\n%s", name, k.id, text)
			}
			junit := string(render(t, c, JUnit))
			if !strings.Contains(junit, "retrieval miss: d01") || raw && strings.Contains(junit, k.id) {
				t.Errorf("%s: JUnit shows %q unmarked:\n%s", name, k.id, junit)
			}
			if corpusKnown {
				if h := html.UnescapeString(string(render(t, c, HTML))); !strings.Contains(h, "the head 1 in 1 query ("+k.shown+")") {
					t.Errorf("%s: HTML lacks the marked id %q in the not-in-corpus line", name, k.shown)
				}
			}

			t.Run(name+", markdown", func(t *testing.T) { lookAlikeMarkdown(t, string(render(t, c, Markdown)), k.id, k.shown, raw) })
		}
	}
}

// lookAlikeMarkdown checks the Markdown as GitHub renders it (cmark-gfm):
// a code span reads shown, none reads as d01 but d01 itself, and the raw
// id is nowhere outside code (checked when raw: no space at its ends).
func lookAlikeMarkdown(t *testing.T, md, id, shown string, raw bool) {
	htm := cmarkgfm.HTML(t, md)
	marked := false
	for _, code := range cmarkgfm.Codes(htm) {
		marked = marked || code == shown
		if gate.FoldName(strings.TrimSpace(code)) == "d01" && code != "d01" {
			t.Errorf("a code span reads as d01 and is %q", code)
		}
	}
	if !marked {
		t.Errorf("no code span reads %q: %q", shown, cmarkgfm.Codes(htm))
	}
	if out := cmarkgfm.OutsideCode(htm); raw && strings.Contains(out, id) {
		t.Errorf("the id %q is in the comment's text outside code:\n%s", id, out)
	}
}

// TestNotInCorpusReadBack: the not_in_corpus block reads back through the
// strict reader and renders the same line; a block beside corpus_known
// false, or counts that disagree with the ids listed, are refused.
func TestNotInCorpusReadBack(t *testing.T) {
	c := lookAlikeComparison(t, "zz-q01", true)
	m := mapOf(t, render(t, c, JSON))
	r, err := ReadCompareReport(bytes.NewReader(encode(t, m)), "report.json")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteCompareReport(&buf, r, Text); err != nil {
		t.Fatal(err)
	}
	if want := "Not in the corpus: returned ids that name no document of it, the head 1 in 1 query (zz-q01); the base none."; !strings.Contains(buf.String(), want) {
		t.Errorf("read back, the text lacks %q:\n%s", want, buf.String())
	}
	for name, tamper := range map[string]func(m map[string]any){
		"corpus unknown": func(m map[string]any) { m["corpus_known"] = false },
		"ids, no count":  func(m map[string]any) { m["not_in_corpus"].(map[string]any)["head"] = 0 },
		"count, no ids":  func(m map[string]any) { m["not_in_corpus"].(map[string]any)["head_ids"] = []any{} },
		"control char":   func(m map[string]any) { m["not_in_corpus"].(map[string]any)["head_ids"] = []any{"a\nb"} },
	} {
		m := mapOf(t, render(t, c, JSON))
		tamper(m)
		if _, err := ReadCompareReport(bytes.NewReader(encode(t, m)), "report.json"); err == nil || !strings.Contains(err.Error(), "not_in_corpus") {
			t.Errorf("%s: read back with %v, want an error naming not_in_corpus", name, err)
		}
	}
}
