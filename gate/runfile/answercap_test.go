package runfile

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

// TestDecodeResultCappedRules: the capped decoder keeps a run line's rules
// and agrees with ParseResult on every line under the cap.
func TestDecodeResultCappedRules(t *testing.T) {
	tests := []struct{ line, want string }{
		{`{"id":"q1","hits":[{"doc":"a","chunk":"a#1","score":1.5,"text":"t"},{"doc":"b"}]}`, ""},
		{`{"hits":[],"id":"q1"}` + "\n", ""},
		{`{"id":"q1","hits":[{"doc":"a\u00e9\n"}]}`, ""},
		{`{"id":"q1"}`, `hits: query "q1": required`},
		{`{"id":"","hits":[]}`, "id: required"},
		{`{"id":null,"hits":[]}`, "id: required"},
		{`{"id":3,"hits":[]}`, "id: wrong type"},
		{`{"hits":[]}`, "id: required"},
		{`{"id":"q1","hits":null}`, "hits: required"},
		{`{"id":"q1","hits":{}}`, "hits: must be an array"},
		{`{"id":"q1","id":"q2","hits":[]}`, "id: key listed twice"},
		{`{"id":"q1","hits":[],"extra":1}`, "extra: unknown field"},
		{`{"id":"q1","hits":[],"context":{"doc":"a"}}`, "context: must be an array of passages"},
		{`{"id":"q1","hits":[],"context":[{"text":"x"}]}`, `context[0].doc: query "q1": passage without a document id`},
		{`{"id":"q1","hits":[],"context":[{"doc":"a","tokens":-3}]}`, "context[0].tokens: query \"q1\": -3 is negative"},
		{`{"id":"q1","hits":[],"context":[{"doc":"a","rank":1}]}`, "context[0].rank: unknown field"},
		{`{"id":"q1","hits":[],"context":[],"context":[]}`, "context: key listed twice"},
		{`{"id":"q1","hits":[],"abstain":"yes"}`, "abstain: must be true or false"},
		{`{"id":"q1","hits":[],"abstain":1}`, "abstain: must be true or false"},
		{`{"id":"q1","hits":[{"doc":"a","doc":"b"}]}`, "hits[0].doc: key listed twice"},
		{`{"id":"q1","hits":[{"doc":"a","rank":1}]}`, "hits[0].rank: unknown field"},
		{`{"id":"q1","hits":[{"doc":""}]}`, "hits[0].doc: query \"q1\": hit without a document id"},
		{`{"id":"q1","hits":[]} {}`, "unexpected data after the JSON object"},
		{`[1]`, "an answer must be a JSON object"},
		{`{"id":"q1","hits":[}`, "invalid JSON"},
	}
	for _, tt := range tests {
		res, total, err := DecodeResultCapped(strings.NewReader(tt.line), "ans", 100)
		if tt.want == "" {
			want, werr := ParseResult([]byte(tt.line), "ans")
			if err != nil || werr != nil || fmt.Sprint(res) != fmt.Sprint(want) || total != len(want.Hits) {
				t.Errorf("%s: got %+v %d %v, ParseResult %+v %v", tt.line, res, total, err, want, werr)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err %v, want %q", tt.line, err, tt.want)
		}
	}
}

// TestDecodeResultCappedKeepsTheFirst: past the cap, hits are counted and
// dropped, even ones that would not decode as hits.
func TestDecodeResultCappedKeepsTheFirst(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"id":"q1","hits":[`)
	for i := 0; i < 5000; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"doc":"d%d"}`, i)
	}
	b.WriteString(`,{"odd":[1,2]}]}`)
	res, total, err := DecodeResultCapped(strings.NewReader(b.String()), "ans", 1000)
	if err != nil || total != 5001 || len(res.Hits) != 1000 || res.Hits[999].Doc != "d999" {
		t.Fatalf("%d kept of %d: %v", len(res.Hits), total, err)
	}
}

// TestDecodeResultCappedValueLimit: one value past MaxAnswerValueBytes is
// refused naming it, and a reader's own error comes back as it is.
func TestDecodeResultCappedValueLimit(t *testing.T) {
	big := strings.Repeat("x", MaxAnswerValueBytes+2*readChunk)
	for _, tt := range []struct{ line, want string }{
		{`{"id":"` + big + `","hits":[]}`, "id: longer than 4 MiB"},
		{`{"id":"q1","hits":[{"doc":"a"},{"doc":"a","text":"` + big + `"}]}`, "hits[1]: longer than 4 MiB"},
		{`{"id":"q1","hits":[],"` + big + `":1}`, "longer than 4 MiB"},
		{`{"id":"q1","hits":[],"` + big[:1<<20] + `":1}`, "ans: xxxx"},
	} {
		_, _, err := DecodeResultCapped(strings.NewReader(tt.line), "ans", 1)
		if err == nil || !strings.Contains(err.Error(), tt.want) || len(err.Error()) > 200 {
			t.Errorf("err %.200v, want %q, at most 200 bytes", err, tt.want)
		}
	}
	_, _, err := DecodeResultCapped(io.MultiReader(strings.NewReader(`{"id":"q1","hits":[`), iotest{}), "ans", 1)
	if err != errStop {
		t.Errorf("err %v, want the reader's own", err)
	}
}

var errStop = fmt.Errorf("stop")

type iotest struct{}

func (iotest) Read([]byte) (int, error) { return 0, errStop }

// TestDecodeResultCappedContext: an answer's context and abstain are kept
// as a run line keeps them, and a context longer than the cap is refused.
func TestDecodeResultCappedContext(t *testing.T) {
	line := `{"id":"q1","hits":[{"doc":"a"}],"context":[{"doc":"a","chunk":"a#2","text":"Settings → Keys","tokens":4},{"doc":"b"}],"abstain":false}`
	res, _, err := DecodeResultCapped(strings.NewReader(line), "ans", 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Context) != 2 || res.Context[0].Chunk != "a#2" || *res.Context[0].Tokens != 4 || res.Context[1].Tokens != nil || res.Abstain == nil || *res.Abstain {
		t.Fatalf("%+v", res)
	}
	for _, l := range []string{`{"id":"q1","hits":[]}`, `{"id":"q1","hits":[],"context":null}`} {
		if res, _, err := DecodeResultCapped(strings.NewReader(l), "ans", 100); err != nil || res.Context != nil || res.Abstain != nil {
			t.Errorf("%s: %+v %v", l, res, err)
		}
	}
	if res, _, err := DecodeResultCapped(strings.NewReader(`{"id":"q1","hits":[],"context":[]}`), "ans", 100); err != nil || res.Context == nil {
		t.Errorf("empty context: %+v %v", res, err)
	}
	if _, _, err := DecodeResultCapped(strings.NewReader(`{"id":"q1","hits":[],"context":[{"doc":"a"},{"doc":"b"},{"doc":"c"}]}`), "ans", 2); err == nil || !strings.Contains(err.Error(), "context[2]") {
		t.Errorf("over the cap: %v", err)
	}
}
