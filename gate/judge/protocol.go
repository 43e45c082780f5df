// Package judge is the room of `recallgate judge`: a judge program (an LLM
// behind a small adapter, usually) grades the query–document pairs nobody
// judged, and is calibrated against the team's own people before any of
// its grades may touch a verdict.
//
// The protocol is one request per pair, {"query_id","query","doc","text",
// "grades":[…names…],"guideline"}, and one answer, {"grade": 0–3,
// "reason": "…", "tokens": N} (reason and tokens optional; an answer may
// echo "query_id" and "doc", which must then be the pair asked). It goes
// over the retrievers' transports: a long-lived command speaking one JSON
// line each way (gate/retriever/command's hardening: timeouts, the
// allowlisted environment, its process group stopped, bounded reads,
// stdout for answers only) or an HTTP service (gate/retriever/http's
// templated request, dot paths and secrets never printed).
//
// Grades go into the set as the labeller "judge:<name>" with the judge's
// fingerprint (Fingerprint), never over a person's grade. Calibrate says
// how far the judge agrees with people on the documents both graded;
// Apply lets its grades count where the base commit's policy allows
// ([gate] min_judge_agreement and min_judge_overlap).
package judge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/runfile"
)

// Request is what the judge is asked about one pair.
type Request struct {
	QueryID   string   `json:"query_id"`
	Query     string   `json:"query"`
	Doc       string   `json:"doc"`
	Text      string   `json:"text"`
	Grades    []string `json:"grades"`
	Guideline string   `json:"guideline"`
}

// ID names the pair in messages: "q1/d3".
func (r Request) ID() string { return r.QueryID + "/" + r.Doc }

// Answer is the judge's grade of one pair.
type Answer struct {
	Grade  int
	Reason string
	Tokens int
}

// MaxAnswerBytes bounds one answer: a grade, a reason and a count fit
// many times over.
const MaxAnswerBytes = 1 << 20

// MaxReasonBytes is the longest reason kept, in bytes of UTF-8 after its
// control characters are gone (cleanReason); a longer one is cut and ends
// with "…". A query's set line holds every reason of its pairs, and a
// line over gate.MaxSetLineBytes is refused by every reader.
const MaxReasonBytes = 1000

// rawAnswer is the JSON shape of an answer.
type rawAnswer struct {
	Grade   *float64 `json:"grade"`
	Reason  *string  `json:"reason"`
	Tokens  *float64 `json:"tokens"`
	QueryID *string  `json:"query_id"`
	Doc     *string  `json:"doc"`
}

// decodeAnswer reads one answer to req from rd, strictly: unknown fields,
// duplicate keys, a grade that is no whole number within 0–MaxGrade and
// an answer naming another pair are errors (the last an
// *runfile.AnswerIDError).
func decodeAnswer(rd io.Reader, req Request) (Answer, error) {
	b, err := io.ReadAll(io.LimitReader(rd, MaxAnswerBytes+1))
	if err != nil {
		return Answer{}, err
	}
	if len(b) > MaxAnswerBytes {
		return Answer{}, fmt.Errorf("an answer longer than %d KiB", MaxAnswerBytes>>10)
	}
	return parseAnswer(b, req)
}

// parseAnswer checks one answer's bytes as decodeAnswer says.
func parseAnswer(b []byte, req Request) (Answer, error) {
	var raw rawAnswer
	if err := gate.DecodeStrict(bytes.TrimSpace(b), &raw); err != nil {
		return Answer{}, fmt.Errorf("not a judge's answer {\"grade\": 0–%d, \"reason\": …}: %w", gate.MaxGrade, err)
	}
	if raw.QueryID != nil && *raw.QueryID != req.QueryID || raw.Doc != nil && *raw.Doc != req.Doc {
		got := req.QueryID
		if raw.QueryID != nil {
			got = *raw.QueryID
		}
		doc := req.Doc
		if raw.Doc != nil {
			doc = *raw.Doc
		}
		return Answer{}, &runfile.AnswerIDError{Want: req.ID(), Got: got + "/" + doc}
	}
	return checkAnswer(raw.Grade, raw.Reason, raw.Tokens)
}

// checkAnswer checks the three values of an answer, however they were read.
func checkAnswer(grade *float64, reason *string, tokens *float64) (Answer, error) {
	var a Answer
	switch {
	case grade == nil:
		return a, errors.New("the answer has no grade")
	case *grade != math.Trunc(*grade) || *grade < 0 || *grade > gate.MaxGrade:
		return a, fmt.Errorf("grade %s is off the scale: a whole number 0–%d", strconv.FormatFloat(*grade, 'g', -1, 64), gate.MaxGrade)
	}
	a.Grade = int(*grade)
	if reason != nil {
		a.Reason = cleanReason(*reason)
		if len(a.Reason) > MaxReasonBytes {
			a.Reason = string(bytes.ToValidUTF8([]byte(a.Reason[:MaxReasonBytes]), nil)) + "…"
		}
	}
	if tokens != nil {
		if *tokens != math.Trunc(*tokens) || *tokens < 0 || *tokens > 1e12 {
			return a, fmt.Errorf("tokens %s: a whole number of tokens, at least 0", strconv.FormatFloat(*tokens, 'g', -1, 64))
		}
		a.Tokens = int(*tokens)
	}
	return a, nil
}

// cleanReason is a reason without control characters: a tab or line
// break becomes a space, any other (ESC, NUL, DEL, the C1 range) is
// dropped, and bytes that are not UTF-8 become U+FFFD. A control
// character is written into the set as a six-byte escape and moves a
// terminal; no reader needs one.
func cleanReason(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return ' '
		case unicode.IsControl(r):
			return -1
		}
		return r
	}, s)
}

// Transport carries requests to a judge and its answers back.
type Transport interface {
	// Grade asks the judge about one pair; every error names it.
	Grade(ctx context.Context, req Request) (Answer, error)
	// Close ends the judge (its process), within a few seconds.
	Close() error
}

// marshalRequest is the request as one JSON line's bytes.
func marshalRequest(req Request) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if req.Grades == nil {
		req.Grades = []string{}
	}
	_ = enc.Encode(req) // strings only
	return bytes.TrimRight(buf.Bytes(), "\n")
}
