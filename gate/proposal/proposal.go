// Package proposal computes and describes what a pull request's eval set
// changes in the base commit's set. On a pull request the base commit's
// set is the ruler both sides are scored on; what the change does to it
// (queries added, removed, relabelled, reworded, re-marked, judge grades
// written) takes effect after merge, and the report shows it as a
// proposal.
package proposal

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/recallgate/recallgate/gate"
)

// Compute is what head proposes to change in base, the set that scored
// both sides: ids matched exactly (a renamed id is removed and added).
func Compute(base, head *gate.Set) *gate.SetChanges {
	sc := &gate.SetChanges{Source: gate.SetBaseCommit, Queries: len(base.Queries)}
	for _, b := range base.Queries {
		h := head.Query(b.ID)
		if h == nil {
			sc.Removed = append(sc.Removed, b.ID)
			continue
		}
		if relabelled(b, h) {
			sc.Relabelled = append(sc.Relabelled, b.ID)
		}
		if b.Text != h.Text {
			sc.Reworded = append(sc.Reworded, b.ID)
		}
		if b.Unanswerable != h.Unanswerable || b.Source != h.Source || !sameSet(b.Segments, h.Segments) {
			sc.Remarked = append(sc.Remarked, b.ID)
		}
		if !same(b.Judges, h.Judges) {
			sc.JudgeGrades = append(sc.JudgeGrades, b.ID)
		}
	}
	for _, h := range head.Queries {
		if base.Query(h.ID) == nil {
			sc.Added = append(sc.Added, h.ID)
		}
	}
	return sc
}

// relabelled reports whether the head changed what a person said about
// the query: its gold, a labeller's grades or marks, an adjudication, its
// evidence or its documents found by search.
func relabelled(b, h *gate.Query) bool {
	return !maps.Equal(b.Gold, h.Gold) || !same(b.Judgments, h.Judgments) || !same(b.Marks, h.Marks) ||
		!same(b.Adjudicated, h.Adjudicated) || !slices.Equal(b.Evidence, h.Evidence) || !sameSet(b.FoundBySearch, h.FoundBySearch)
}

// same is reflect.DeepEqual with an empty map or slice equal to none.
func same(a, b any) bool {
	if reflect.ValueOf(a).Len() == 0 && reflect.ValueOf(b).Len() == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

// sameSet reports whether a and b hold the same strings, in any order.
func sameSet(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

// Any reports whether the head proposes a change to the set.
func Any(sc *gate.SetChanges) bool {
	return sc != nil && len(sc.Added)+len(sc.Removed)+len(sc.Relabelled)+len(sc.Reworded)+len(sc.Remarked)+len(sc.JudgeGrades) > 0
}

// kinds are the proposal's lists in report order, with the word the
// headline counts them by and what each list's line says of them.
func kinds(sc *gate.SetChanges) []struct {
	ids        []string
	word, says string
} {
	return []struct {
		ids        []string
		word, says string
	}{
		{sc.Added, "added", "added (retrieved on both sides and listed, not gating until merged)"},
		{sc.Removed, "removed", "removed (still gated: the base commit's set holds them)"},
		{sc.Relabelled, "relabelled", "relabelled or re-graded (judged by the base commit's labels)"},
		{sc.Reworded, "reworded", "reworded (both sides sent the base commit's text)"},
		{sc.Remarked, "re-marked", "re-marked: unanswerable, segment or source (judged as the base commit marks them)"},
		{sc.JudgeGrades, "with judge grades", "judge grades added or changed (none counts before merge)"},
	}
}

// Headline is the report's one short clause on the set: "set: the base
// commit's (30 queries); this change proposes 2 added, 1 removed, 1
// relabelled". When queries it removes regress in it (regressed, the
// comparison's regressed ids), it says how many: "this change proposes 83
// removed; all 83 regress in it". "" when the change proposes nothing
// (the base commit's set unchanged, or no base set: the given set scored,
// which the notes say).
func Headline(sc *gate.SetChanges, regressed []string) string {
	if !Any(sc) {
		return ""
	}
	var parts []string
	for _, k := range kinds(sc) {
		if len(k.ids) > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", len(k.ids), k.word))
		}
	}
	out := fmt.Sprintf("set: the base commit's (%s); this change proposes %s", count(sc.Queries), strings.Join(parts, ", "))
	if n := removedRegressed(sc, regressed); n > 0 {
		what := "them"
		if len(parts) > 1 {
			what = "the removed"
		}
		out += "; " + regressWords(n, len(sc.Removed), what) + " in it"
	}
	return out
}

// removedRegressed counts the removed queries among regressed.
func removedRegressed(sc *gate.SetChanges, regressed []string) int {
	n := 0
	for _, id := range sc.Removed {
		if slices.Contains(regressed, id) {
			n++
		}
	}
	return n
}

// regressWords says that n of the removed regress: "all 83 regress"
// when n is every one of them, "that query regresses" for a lone one,
// else "5 of them regress" (what names them).
func regressWords(n, removed int, what string) string {
	switch {
	case n == removed && removed == 1:
		return "that query regresses"
	case n == removed && what == "them":
		return fmt.Sprintf("all %d regress", n)
	case n == removed:
		return fmt.Sprintf("all %d removed regress", n)
	}
	return fmt.Sprintf("%d of %s %s", n, what, gate.Plural(n, "regresses", "regress"))
}

// MaxListed is how many ids each of Lines's lines names.
const MaxListed = 20

// Lines are the proposal's lists, one line each ("added (…): q31, q32"),
// every id written by id (the format's escaping); none when nothing is
// proposed. The removed line says how many of them regress in the change
// (regressed, the comparison's regressed ids).
func Lines(sc *gate.SetChanges, regressed []string, id func(string) string) []string {
	if !Any(sc) {
		return nil
	}
	var out []string
	for _, k := range kinds(sc) {
		if len(k.ids) == 0 {
			continue
		}
		if k.word == "removed" {
			if n := removedRegressed(sc, regressed); n > 0 {
				k.says = fmt.Sprintf("removed (still gated: the base commit's set holds them; %s in this change)", regressWords(n, len(k.ids), "them"))
			}
		}
		shown := make([]string, len(k.ids))
		for i, s := range k.ids {
			shown[i] = id(gate.ClipID(s))
		}
		out = append(out, k.says+": "+gate.JoinFirst(shown, MaxListed))
	}
	return out
}

// count is "1 query" or "n queries".
func count(n int) string {
	return fmt.Sprintf("%d %s", n, gate.Plural(n, "query", "queries"))
}
