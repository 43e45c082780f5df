package setfile

import (
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
)

// FuzzParseSet: any input either parses into a valid set or gives an
// InputError; it never panics, and an accepted set keeps the rules.
func FuzzParseSet(f *testing.F) {
	for _, s := range []string{
		`{"id":"q1","query":"rotate key","gold":{"a":3,"b":0},"segments":["x"],"source":"log","evidence":["e"],"verified":"2026-01-02"}`,
		`{"id":"q2","query":"none","gold":{},"unanswerable":true}`,
		"1 0 d1 2\n1 0 d2 0\n2 0 d3 1\n",
		"query-id\tcorpus-id\tscore\n1\td1\t1\n",
		`{"id":"q","query":"a","gold":{"d":1,"d":2}}`,
		"\xef\xbb\xbf{\"id\":\"q\",\"query\":\"a\",\"gold\":{\"d\":1}}\r\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := Parse(strings.NewReader(in), "fuzz.jsonl")
		if err != nil {
			if !gate.IsInput(err) {
				t.Fatalf("error is not an InputError: %v", err)
			}
			return
		}
		if len(s.Queries) == 0 {
			t.Fatal("accepted an empty set")
		}
		for _, q := range s.Queries {
			if (q.Relevant() == 0) != q.Unanswerable {
				t.Fatalf("query %q: relevant %d, unanswerable %v", q.ID, q.Relevant(), q.Unanswerable)
			}
			for _, g := range q.Gold {
				if g < 0 || g > gate.MaxGrade {
					t.Fatalf("grade %d accepted", g)
				}
			}
		}
	})
}
