package judge

import (
	"errors"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate/runfile"
)

// TestParseAnswer: what an answer may be, and every way it may not.
func TestParseAnswer(t *testing.T) {
	req := Request{QueryID: "q1", Doc: "d1"}
	for _, c := range []struct {
		line  string
		want  Answer
		error string
	}{
		{`{"grade": 2, "reason": "says so", "tokens": 40}`, Answer{Grade: 2, Reason: "says so", Tokens: 40}, ""},
		{`{"grade": 0}`, Answer{}, ""},
		{`{"grade": 3, "query_id": "q1", "doc": "d1"}`, Answer{Grade: 3}, ""},
		{`{"grade": 7}`, Answer{}, "grade 7 is off the scale"},
		{`{"grade": -1}`, Answer{}, "grade -1 is off the scale"},
		{`{"grade": 1.5}`, Answer{}, "grade 1.5 is off the scale"},
		{`{"grade": "2"}`, Answer{}, "not a judge's answer"},
		{`{"reason": "no grade"}`, Answer{}, "the answer has no grade"},
		{`{"grade": 1, "score": 0.9}`, Answer{}, "not a judge's answer"},
		{`{"grade": 1, "grade": 2}`, Answer{}, "not a judge's answer"},
		{`{"grade": 1, "tokens": -3}`, Answer{}, "tokens -3"},
		{`relevant!`, Answer{}, "not a judge's answer"},
		{`{"grade": 1, "doc": "d2"}`, Answer{}, `an answer for "q1/d2"`},
		{`{"grade": 1, "query_id": "q9"}`, Answer{}, `an answer for "q9/d1"`},
		// Control characters: line breaks and tabs read as spaces, the
		// rest (ESC, NUL, DEL, C1) dropped; a bidi control is shown
		// marked wherever the reason is shown, so it stays.
		{`{"grade": 2, "reason": "\u001b[31mred\u001b[0m\n\tok\u0000\u007f\u0085 \u202eend"}`, Answer{Grade: 2, Reason: "[31mred[0m  ok \u202eend"}, ""},
		{`{"grade": 0, "reason": "\u001b\u001b\u001b"}`, Answer{}, ""},
	} {
		got, err := parseAnswer([]byte(c.line), req)
		switch {
		case c.error == "" && (err != nil || got != c.want):
			t.Errorf("%s: got %+v, %v; want %+v", c.line, got, err, c.want)
		case c.error != "" && (err == nil || !strings.Contains(err.Error(), c.error)):
			t.Errorf("%s: error %v, want one saying %q", c.line, err, c.error)
		}
	}
	var other *runfile.AnswerIDError
	if _, err := parseAnswer([]byte(`{"grade":1,"doc":"x"}`), req); !errors.As(err, &other) {
		t.Errorf("an answer for another document is %T, want *runfile.AnswerIDError (the transport names it so)", err)
	}
	long, _ := parseAnswer([]byte(`{"grade":1,"reason":"`+strings.Repeat("é", MaxReasonBytes)+`"}`), req)
	if len(long.Reason) > MaxReasonBytes+len("…") || !strings.HasSuffix(long.Reason, "…") || !strings.HasPrefix(long.Reason, "éé") {
		t.Errorf("a long reason is kept whole or cut inside a character: %d bytes", len(long.Reason))
	}
}
