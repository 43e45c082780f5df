package proposal

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/setfile"
)

func parse(t *testing.T, lines ...string) *gate.Set {
	t.Helper()
	s, err := setfile.Parse(strings.NewReader(strings.Join(lines, "\n")+"\n"), "set.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestCompute: each kind of change to a query lands in its own list, ids
// matched exactly (a recapitalised id is removed and added), a query
// whose segments are only reordered is unchanged.
func TestCompute(t *testing.T) {
	base := parse(t,
		`{"id":"a","query":"one","gold":{"d1":1},"segments":["x","y"],"source":"log"}`,
		`{"id":"b","query":"two","gold":{"d2":1}}`,
		`{"id":"c","query":"three","gold":{"d3":1}}`,
		`{"id":"d","query":"four","gold":{"d4":1},"source":"log"}`,
		`{"id":"e","query":"five","gold":{"d5":1}}`,
		`{"id":"Q6","query":"six","gold":{"d6":1}}`,
		`{"id":"g","query":"seven","gold":{"d7":1},"evidence":["a fact"]}`,
	)
	head := parse(t,
		`{"id":"a","query":"one","gold":{"d1":1},"segments":["y","x"],"source":"log"}`, // unchanged
		`{"id":"b","query":"two","gold":{"d9":1}}`,                                     // relabelled
		`{"id":"c","query":"three, reworded","gold":{"d3":1}}`,                         // reworded
		`{"id":"d","query":"four","gold":{"d4":1},"source":"synthetic"}`,               // re-marked
		`{"id":"e","query":"five","gold":{},"unanswerable":true}`,                      // relabelled and re-marked
		`{"id":"q6","query":"six","gold":{"d6":1}}`,                                    // Q6 renamed
		`{"id":"g","query":"seven","gold":{"d7":1},"evidence":["another fact"]}`,       // relabelled
		`{"id":"h","query":"eight","gold":{"d8":1}}`,                                   // added
	)
	sc := Compute(base, head)
	for _, tc := range []struct {
		name      string
		got, want []string
	}{
		{"added", sc.Added, []string{"q6", "h"}},
		{"removed", sc.Removed, []string{"Q6"}},
		{"relabelled", sc.Relabelled, []string{"b", "e", "g"}},
		{"reworded", sc.Reworded, []string{"c"}},
		{"remarked", sc.Remarked, []string{"d", "e"}},
		{"judge grades", sc.JudgeGrades, nil},
	} {
		if !slices.Equal(tc.got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, tc.got, tc.want)
		}
	}
	if sc.Source != gate.SetBaseCommit || sc.Queries != 7 {
		t.Errorf("source %q, queries %d", sc.Source, sc.Queries)
	}
	if got, want := Headline(sc, nil), "set: the base commit's (7 queries); this change proposes 2 added, 1 removed, 3 relabelled, 1 reworded, 2 re-marked"; got != want {
		t.Errorf("headline %q, want %q", got, want)
	}
	if Headline(Compute(base, base), nil) != "" || Lines(Compute(base, base), nil, nil) != nil {
		t.Error("an unchanged set proposes something")
	}
}

// TestJudgeGrades: judge grades a change writes into the set are listed
// as such, and MaxListed clips a long list.
func TestJudgeGrades(t *testing.T) {
	var base, head []string
	for i := range MaxListed + 2 {
		base = append(base, fmt.Sprintf(`{"id":"q%02d","query":"x","gold":{"d":1}}`, i))
		head = append(head, fmt.Sprintf(`{"id":"q%02d","query":"x","gold":{"d":1},"judgments":{"judge:tagger":{"e":2}},"labellers":{"judge:tagger":{"fingerprint":"sha256:%s"}}}`, i, strings.Repeat("a", 64)))
	}
	sc := Compute(parse(t, base...), parse(t, head...))
	if len(sc.JudgeGrades) != MaxListed+2 || len(sc.Relabelled) != 0 {
		t.Fatalf("judge grades %q, relabelled %q", sc.JudgeGrades, sc.Relabelled)
	}
	lines := Lines(sc, nil, func(s string) string { return "<" + s + ">" })
	if len(lines) != 1 || !strings.HasSuffix(lines[0], ", <q19>, …and 2 more") || !strings.HasPrefix(lines[0], "judge grades added or changed (none counts before merge): <q00>, ") {
		t.Errorf("lines %q", lines)
	}
}

// TestHeadlineRemovedRegressed: the clause on removed queries that regress
// in the change, by how many of them do.
func TestHeadlineRemovedRegressed(t *testing.T) {
	for _, tc := range []struct {
		name            string
		added, removed  []string
		regressed, want string
	}{
		{"all", nil, []string{"a", "b", "c"}, "a,b,c,z", "this change proposes 3 removed; all 3 regress in it"},
		{"some", nil, []string{"a", "b", "c"}, "b,c", "this change proposes 3 removed; 2 of them regress in it"},
		{"one of several", nil, []string{"a", "b"}, "b", "this change proposes 2 removed; 1 of them regresses in it"},
		{"the only one", nil, []string{"a"}, "a", "this change proposes 1 removed; that query regresses in it"},
		{"with others", []string{"n"}, []string{"a", "b"}, "a,b", "this change proposes 1 added, 2 removed; all 2 removed regress in it"},
		{"some with others", []string{"n"}, []string{"a", "b"}, "a", "this change proposes 1 added, 2 removed; 1 of the removed regresses in it"},
		{"none", nil, []string{"a"}, "z", "this change proposes 1 removed"},
	} {
		sc := &gate.SetChanges{Source: gate.SetBaseCommit, Queries: 9, Added: tc.added, Removed: tc.removed}
		if got, want := Headline(sc, strings.Split(tc.regressed, ",")), "set: the base commit's (9 queries); "+tc.want; got != want {
			t.Errorf("%s: %q, want %q", tc.name, got, want)
		}
	}
}
