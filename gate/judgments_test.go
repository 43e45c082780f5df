package gate

import (
	"reflect"
	"testing"
	"time"
)

// TestDeriveAndDisputes: gold from the judgements record by GoldRule, and
// which documents go to adjudication, on hand-made cases.
func TestDeriveAndDisputes(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 12, d, 0, 0, 0, 0, time.UTC) }
	tests := []struct {
		name      string
		judgments map[string]map[string]int
		marks     map[string]*Mark
		decided   map[string]Adjudication
		gold      map[string]int // before
		wantGold  map[string]int
		wantUnans bool
		disputed  []string
	}{
		{name: "one labeller is the gold", judgments: map[string]map[string]int{"ana": {"a": 2, "b": 0}},
			wantGold: map[string]int{"a": 2}, disputed: nil},
		{name: "relevant vs not: the maximum, disputed", judgments: map[string]map[string]int{"ana": {"a": 1}, "ben": {"a": 0}},
			wantGold: map[string]int{"a": 1}, disputed: []string{"a"}},
		{name: "one grade apart is not a dispute", judgments: map[string]map[string]int{"ana": {"a": 2}, "ben": {"a": 3}},
			wantGold: map[string]int{"a": 3}},
		{name: "two grades apart is", judgments: map[string]map[string]int{"ana": {"a": 3}, "ben": {"a": 1}},
			wantGold: map[string]int{"a": 3}, disputed: []string{"a"}},
		{name: "the adjudicated grade wins, even 0", judgments: map[string]map[string]int{"ana": {"a": 3}, "ben": {"a": 0}},
			decided: map[string]Adjudication{"a": {Grade: 0, By: "cara", On: day(3)}}, wantGold: map[string]int{}, disputed: []string{"a"}},
		{name: "unanswerable against relevant", judgments: map[string]map[string]int{"ben": {"a": 2}},
			marks: map[string]*Mark{"ana": {Unanswerable: true}}, wantGold: map[string]int{"a": 2}, disputed: []string{"a"}},
		{name: "unanswerable when decided not relevant", judgments: map[string]map[string]int{"ben": {"a": 2}},
			marks: map[string]*Mark{"ana": {Unanswerable: true}}, decided: map[string]Adjudication{"a": {Grade: 0, By: "cara"}},
			wantGold: map[string]int{}, wantUnans: true, disputed: []string{"a"}},
		{name: "unjudged gold of a hand-made set stays", judgments: map[string]map[string]int{"ana": {"b": 1}},
			gold: map[string]int{"old": 3}, wantGold: map[string]int{"old": 3, "b": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := &Query{ID: "q", Gold: map[string]int{}, Judgments: tt.judgments, Marks: tt.marks, Adjudicated: tt.decided}
			for d, g := range tt.gold {
				q.Gold[d] = g
			}
			q.Derive()
			if !reflect.DeepEqual(q.Gold, tt.wantGold) || q.Unanswerable != tt.wantUnans {
				t.Errorf("gold %v unanswerable %v, want %v %v", q.Gold, q.Unanswerable, tt.wantGold, tt.wantUnans)
			}
			var got []string
			for _, d := range q.Disputes() {
				got = append(got, d.Doc)
				if _, ok := tt.decided[d.Doc]; ok != (d.Decided != nil) {
					t.Errorf("%s: decision attached %v, want %v", d.Doc, d.Decided != nil, ok)
				}
			}
			if !reflect.DeepEqual(got, tt.disputed) {
				t.Errorf("disputed %v, want %v", got, tt.disputed)
			}
		})
	}
	// The date is the latest of the labellers' and the decision's.
	q := &Query{Gold: map[string]int{}, Judgments: map[string]map[string]int{"ana": {"a": 1}}, Marks: map[string]*Mark{"ana": {Verified: day(1)}, "ben": {Verified: day(2)}},
		Adjudicated: map[string]Adjudication{"a": {Grade: 1, By: "cara", On: day(3)}}}
	q.Derive()
	if !q.Verified.Equal(day(3)) {
		t.Errorf("verified %v", q.Verified)
	}
}
