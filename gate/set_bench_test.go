package gate

import (
	"bytes"
	"fmt"
	"testing"
)

// BenchmarkParseSet parses a JSONL set of 10,000 queries with gold and
// judgements: every line goes through CheckDuplicateKeys and the decoder.
func BenchmarkParseSet(b *testing.B) {
	var buf bytes.Buffer
	for i := range 10_000 {
		fmt.Fprintf(&buf, `{"id":"q%d","query":"how do I rotate key %d","gold":{"d%d":2,"d%d":1},"segments":["s%d"],"judgments":{"alice":{"d%d":2,"x%d":0}}}`+"\n", i, i, i, i+1, i%7, i, i)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseSet(bytes.NewReader(data), "set.jsonl"); err != nil {
			b.Fatal(err)
		}
	}
}
