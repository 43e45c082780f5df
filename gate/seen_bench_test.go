package gate

import (
	"fmt"
	"testing"
)

func BenchmarkSeenVsMap(b *testing.B) {
	docs := make([]string, 1000)
	for i := range docs {
		docs[i] = fmt.Sprintf("doc%07d", i*7919)
	}
	b.Run("seen", func(b *testing.B) {
		var s Seen
		for i := 0; i < b.N; i++ {
			s.reset(len(docs))
			for _, d := range docs {
				s.add(d)
			}
		}
	})
	b.Run("map", func(b *testing.B) {
		m := map[string]struct{}{}
		for i := 0; i < b.N; i++ {
			clear(m)
			for _, d := range docs {
				before := len(m)
				m[d] = struct{}{}
				_ = len(m) == before
			}
		}
	})
}
