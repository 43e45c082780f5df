package gate

import (
	"errors"
	"fmt"
	"testing"
)

// TestRetrievalErrorOneLinePerReason: queries stopped by one failure share
// one line, and a retriever down before any answer is one line for all.
func TestRetrievalErrorOneLinePerReason(t *testing.T) {
	stopped := errors.New("the retriever was stopped after an earlier query (q05) failed")
	f := map[string]error{"q05": errors.New("retriever process r exited before answering q05 (exit status 7)")}
	for i := 6; i <= 40; i++ {
		f[fmt.Sprintf("q%02d", i)] = stopped
	}
	want := "head: 36 queries could not be retrieved (not scored as misses):\n" +
		"  q05: retriever process r exited before answering q05 (exit status 7)\n" +
		"  q06, q07, q08, q09, q10, …and 30 more: the retriever was stopped after an earlier query (q05) failed"
	if got := (&RetrievalError{Side: "head", Failures: f}).Error(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	down := &RetrieverDownError{Msg: "retriever process r exited before its first answer (exit status 1); its stderr ended with: \"boom\""}
	f = map[string]error{"q1": down, "q2": fmt.Errorf("wrapped: %w", down), "q3": down}
	want = "head: 3 queries not retrieved (not scored as misses): " + down.Msg
	if got := (&RetrievalError{Side: "head", Failures: f}).Error(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
