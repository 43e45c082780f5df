package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/config"
	httpretriever "github.com/recallgate/recallgate/gate/retriever/http"
)

// HTTPDoer is the client an http judge sends with.
type HTTPDoer = *http.Client

// httpJudge is a judge service behind a templated request
// (httpretriever.Caller), its answer read at dot paths.
type httpJudge struct {
	c                    *httpretriever.Caller
	grade, reason, token string
}

// newHTTP makes an http judge (no request sent).
func newHTTP(j *config.Judge, o Options) (Transport, error) {
	retries := httpretriever.DefaultRetries
	if j.Retries != nil {
		retries = *j.Retries
	}
	c, err := httpretriever.NewCaller(httpretriever.Config{URL: j.URL, Method: j.Method, Body: j.Body, Headers: j.Headers, Retries: retries, MaxBody: j.MaxBody}, o.Client, o.Getenv)
	if err != nil {
		return nil, &gate.InputError{File: o.Config.Path, Line: j.Line, Field: "judge", Err: err}
	}
	or := func(v, def string) string {
		if v == "" {
			return def
		}
		return v
	}
	return &httpJudge{c: c, grade: or(j.GradePath, "grade"), reason: or(j.ReasonPath, "reason"), token: or(j.TokensPath, "tokens")}, nil
}

// Grade implements Transport.
func (h *httpJudge) Grade(ctx context.Context, req Request) (Answer, error) {
	grades, _ := json.Marshal(req.Grades)
	body, err := h.c.Call(ctx, []httpretriever.Var{{Name: "query_id", Value: req.QueryID}, {Name: "query", Value: req.Query}, {Name: "doc", Value: req.Doc},
		{Name: "text", Value: req.Text}, {Name: "guideline", Value: req.Guideline}, {Name: "grades", Value: string(grades), Number: true}})
	if err != nil {
		return Answer{}, err
	}
	if err := gate.CheckDuplicateKeys(body); err != nil {
		return Answer{}, fmt.Errorf("%s: not a judge's answer: %w", h.c.Where(), err)
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return Answer{}, fmt.Errorf("%s: not a judge's answer (not JSON): %w", h.c.Where(), err)
	}
	num := func(path string) (*float64, error) {
		x, ok := httpretriever.Lookup(v, path)
		if !ok || x == nil {
			return nil, nil
		}
		f, isNum := x.(float64)
		if !isNum {
			return nil, fmt.Errorf("%s: %q is %s, not a number", h.c.Where(), path, strconv.Quote(fmt.Sprint(x)))
		}
		return &f, nil
	}
	g, err := num(h.grade)
	if err != nil {
		return Answer{}, err
	}
	t, err := num(h.token)
	if err != nil {
		return Answer{}, err
	}
	var reason *string
	if x, ok := httpretriever.Lookup(v, h.reason); ok && x != nil {
		s, isStr := x.(string)
		if !isStr {
			return Answer{}, fmt.Errorf("%s: %q is not a string", h.c.Where(), h.reason)
		}
		reason = &s
	}
	a, err := checkAnswer(g, reason, t)
	if err != nil {
		return Answer{}, fmt.Errorf("%s: %w (at %q)", h.c.Where(), err, h.grade)
	}
	return a, nil
}

// Close implements Transport.
func (h *httpJudge) Close() error { return nil }
