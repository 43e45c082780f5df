package runfile

import (
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
)

// FuzzReadRun: JSONL and TREC runs never panic, errors are InputErrors,
// and every accepted hit has a document id.
func FuzzReadRun(f *testing.F) {
	for _, s := range []string{
		`{"id":"q1","hits":[{"doc":"a","chunk":"a#1","score":1.5,"text":"t"}]}`,
		`{"recallgate":{"set":"sha256:00"}}` + "\n" + `{"id":"q1","hits":[]}`,
		"q1 Q0 a 1 2.5 run\nq1 Q0 b 2 2.5 run\nq2 Q0 c 1 -1 run\n",
		"q1 Q0 a 1 NaN run\n",
		"q1\tQ0\ta\t1\t1e3\trun\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		err := ReadRun(strings.NewReader(in), "fuzz.run", func(r gate.Result) error {
			for _, h := range r.Hits {
				if strings.TrimSpace(h.Doc) == "" {
					t.Fatalf("accepted a hit without a doc in %q", r.ID)
				}
			}
			return nil
		})
		if err != nil && !gate.IsInput(err) {
			t.Fatalf("error is not an InputError: %v", err)
		}
	})
}
