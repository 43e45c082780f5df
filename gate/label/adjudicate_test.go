package label

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/setfile"
)

// get asks the page's API with the run's key, as the page does.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	code, _, raw := call(t, "GET", url, "")
	return code, raw
}

// must posts and fails the test unless the change was taken.
func must(t *testing.T, srv *httptest.Server, path, body string) stateView {
	t.Helper()
	code, v, raw := post(t, srv.URL+path, body)
	if code == http.StatusConflict { // the other labeller wrote: reload, again
		get(t, srv.URL+"/api/state")
		code, v, raw = post(t, srv.URL+path, body)
	}
	if code != 200 {
		t.Fatalf("%s %s: %d %s", path, body, code, raw)
	}
	return v
}

func loadLine(t *testing.T, p string, n int) *gate.Query {
	t.Helper()
	set, err := setfile.LoadDraft(p)
	if err != nil {
		t.Fatal(err)
	}
	return set.Queries[n]
}

// TestBlindThenAdjudicate: ana grades and marks; ben's view holds none of
// it (grades, unanswerable mark, unsure mark, note, date, progress); the
// disagreements go to adjudication, where cara sees both grades and her
// decision wins; both labellers' grades stay on disk throughout.
func TestBlindThenAdjudicate(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(dir+"/draft.jsonl", []byte(`{"id":"q1","query":"rotate api key","gold":{}}
{"id":"q2","query":"dlq redrive","gold":{}}
`), 0o644)
	ana, p := newServer(t, dir, Options{Labeller: "ana"})
	must(t, ana, "/api/grade", `{"id":"q1","doc":"security/api-keys","grade":3}`)
	must(t, ana, "/api/grade", `{"id":"q1","doc":"security/tokens","grade":1}`)
	must(t, ana, "/api/grade", `{"id":"q2","doc":"queues/dlq","grade":0}`)
	must(t, ana, "/api/query", `{"id":"q2","unanswerable":true,"unsure":true,"note":"no redrive doc"}`)

	ben, _ := newServer(t, dir, Options{Labeller: "ben"})
	_, raw := get(t, ben.URL+"/api/state")
	var v stateView
	json.Unmarshal([]byte(raw), &v)
	if v.Done != 0 {
		t.Errorf("ben starts at %d labelled", v.Done)
	}
	for _, q := range v.Queries {
		if q.Unanswerable || q.Unsure || q.Note != "" || q.Verified != "" || q.Labelled || q.Graded != 0 {
			t.Errorf("ben sees ana's marks on %s: %+v", q.ID, q)
		}
		for _, c := range q.Candidates {
			if c.Grade != nil || c.Others != nil {
				t.Errorf("ben sees a grade on %s %s", q.ID, c.Doc)
			}
		}
	}
	for _, leak := range []string{"ana", "no redrive doc", "2026-12-03"} {
		if strings.Contains(raw, leak) {
			t.Errorf("ben's state holds %q: %s", leak, raw)
		}
	}
	must(t, ben, "/api/grade", `{"id":"q1","doc":"security/api-keys","grade":1}`) // graded: 3 vs 1
	must(t, ben, "/api/grade", `{"id":"q1","doc":"security/tokens","grade":0}`)   // relevant vs not
	must(t, ben, "/api/grade", `{"id":"q2","doc":"queues/dlq","grade":2}`)        // unanswerable vs relevant

	q1, q2 := loadLine(t, p, 0), loadLine(t, p, 1)
	if q1.Gold["security/api-keys"] != 3 || q1.Gold["security/tokens"] != 1 || q2.Gold["queues/dlq"] != 2 || q2.Unanswerable {
		t.Fatalf("gold before adjudication (the maximum): %v %v unanswerable %v", q1.Gold, q2.Gold, q2.Unanswerable)
	}
	cara, _ := newServer(t, dir, Options{Labeller: "cara", Adjudicate: true})
	_, raw = get(t, cara.URL+"/api/state")
	json.Unmarshal([]byte(raw), &v)
	if v.Mode != "adjudicate" || len(v.Queries) != 2 || len(v.Queries[0].Candidates) != 2 || len(v.Queries[1].Candidates) != 1 {
		t.Fatalf("adjudication view: %s", raw)
	}
	if o := v.Queries[1].Candidates[0].Others; len(o) != 2 || o[0] != (otherGrade{"ana", 0}) || o[1] != (otherGrade{"ben", 2}) || v.Queries[1].UnsureBy[0] != "ana" {
		t.Errorf("q2 shows %+v, unsure %v", o, v.Queries[1].UnsureBy)
	}
	must(t, cara, "/api/grade", `{"id":"q1","doc":"security/api-keys","grade":2}`)
	must(t, cara, "/api/grade", `{"id":"q1","doc":"security/tokens","grade":0}`)
	v = must(t, cara, "/api/grade", `{"id":"q2","doc":"queues/dlq","grade":0}`)
	if v.Done != 2 {
		t.Errorf("after every decision %d of 2 done", v.Done)
	}
	if code, _, raw := post(t, cara.URL+"/api/query", `{"id":"q2","unanswerable":false}`); code != 400 {
		t.Errorf("an adjudicator changed a labeller's mark: %d %s", code, raw)
	}
	q1, q2 = loadLine(t, p, 0), loadLine(t, p, 1)
	if len(q1.Gold) != 1 || q1.Gold["security/api-keys"] != 2 || len(q2.Gold) != 0 || !q2.Unanswerable {
		t.Errorf("gold after adjudication: %v %v unanswerable %v", q1.Gold, q2.Gold, q2.Unanswerable)
	}
	a := q1.Adjudicated["security/api-keys"]
	if a.By != "cara" || a.Grade != 2 || a.Grades["ana"] != 3 || a.Grades["ben"] != 1 || a.On.Format("2006-01-02") != "2026-12-03" {
		t.Errorf("decision recorded as %+v", a)
	}
	if q1.Judgments["ana"]["security/api-keys"] != 3 || q1.Judgments["ben"]["security/api-keys"] != 1 || q2.Judgments["ben"]["queues/dlq"] != 2 || !q2.Marks["ana"].Unanswerable {
		t.Errorf("a labeller's grade was lost: %v %v", q1.Judgments, q2.Judgments)
	}
}

// TestUndoTakesBackTheLastChange: grade, regrade, mark; three undos put
// each back in turn, and a fourth has nothing left.
func TestUndoTakesBackTheLastChange(t *testing.T) {
	srv, p := newServer(t, t.TempDir(), Options{})
	must(t, srv, "/api/grade", `{"id":"q1","doc":"security/api-keys","grade":3}`)
	must(t, srv, "/api/grade", `{"id":"q1","doc":"security/api-keys","grade":1}`)
	must(t, srv, "/api/query", `{"id":"q1","note":"maybe"}`)
	v := must(t, srv, "/api/undo", `{}`)
	if v.Queries[0].Note != "" || *v.Queries[0].Candidates[0].Grade != 1 || v.Undo != 2 {
		t.Errorf("undo 1: %+v", v.Queries[0])
	}
	must(t, srv, "/api/undo", `{}`)
	if q := loadLine(t, p, 0); q.Gold["security/api-keys"] != 3 {
		t.Errorf("undo 2: gold %v", q.Gold)
	}
	must(t, srv, "/api/undo", `{}`)
	if q := loadLine(t, p, 0); len(q.Gold) != 0 || len(q.Judgments["ana"]) != 0 {
		t.Errorf("undo 3: %v %v", q.Gold, q.Judgments)
	}
	if code, _, raw := post(t, srv.URL+"/api/undo", `{}`); code != 400 || !strings.Contains(raw, "nothing to undo") {
		t.Errorf("undo 4: %d %s", code, raw)
	}
}

// TestSearchFindsGoldOutsideThePool: a search of the corpus finds a
// document no retriever returned; graded relevant it becomes gold and is
// marked as found by search; "expand" skips what the page already shows.
func TestSearchFindsGoldOutsideThePool(t *testing.T) {
	corpus := []Candidate{{Doc: "sso/keys", Title: "SSO keys", Texts: []string{"Rotate SSO signing keys from the identity provider."}},
		{Doc: "security/api-keys", Title: "API keys"}, {Doc: "misc/other", Title: "Other"}}
	search := func(text string, k int) ([]Candidate, error) {
		var out []Candidate
		for _, c := range corpus {
			if strings.Contains(strings.ToLower(c.Title+" "+strings.Join(c.Texts, " ")), strings.ToLower(strings.Fields(text)[0])) || text == "rotate api key" {
				out = append(out, c)
			}
		}
		return out[:min(k, len(out))], nil
	}
	srv, p := newServer(t, t.TempDir(), Options{Search: search})
	code, raw := get(t, srv.URL+"/api/search?id=q1&q=sso")
	if code != 200 || !strings.Contains(raw, `"doc":"sso/keys"`) || !strings.Contains(raw, `"in_pool":false`) {
		t.Fatalf("search: %d %s", code, raw)
	}
	code, raw = get(t, srv.URL+"/api/search?id=q1&expand=10")
	if code != 200 || strings.Contains(raw, `"doc":"security/api-keys"`) || !strings.Contains(raw, `"doc":"sso/keys"`) {
		t.Errorf("expand shows a pooled document or misses one: %s", raw)
	}
	v := must(t, srv, "/api/grade", `{"id":"q1","doc":"sso/keys","grade":2,"searched":true}`)
	last := v.Queries[0].Candidates[len(v.Queries[0].Candidates)-1]
	if last.Doc != "sso/keys" || !last.Searched {
		t.Errorf("the found document is not kept on the page: %+v", last)
	}
	q := loadLine(t, p, 0)
	if q.Gold["sso/keys"] != 2 || len(q.FoundBySearch) != 1 || q.FoundBySearch[0] != "sso/keys" {
		t.Errorf("on disk: gold %v found %v", q.Gold, q.FoundBySearch)
	}
	// Graded from a search but in the pool: not "found by search".
	must(t, srv, "/api/grade", `{"id":"q1","doc":"security/api-keys","grade":1,"searched":true}`)
	if q := loadLine(t, p, 0); len(q.FoundBySearch) != 1 {
		t.Errorf("a pooled document marked as found by search: %v", q.FoundBySearch)
	}
	broken, _ := newServer(t, t.TempDir(), Options{Search: func(string, int) ([]Candidate, error) { return nil, errors.New("index corpus: permission denied") }})
	if code, raw := get(t, broken.URL+"/api/search?id=q1&q=x"); code != 500 || !strings.Contains(raw, "search the corpus: index corpus: permission denied") {
		t.Errorf("a search that cannot index: %d %s", code, raw)
	}
	noSearch, _ := newServer(t, t.TempDir(), Options{})
	if code, raw := get(t, noSearch.URL+"/api/search?id=q1&q=x"); code != 404 || !strings.Contains(raw, "no corpus") {
		t.Errorf("search without a corpus: %d %s", code, raw)
	}
}

// TestReverifyConfirms: the page shows the current gold; confirm re-dates
// the query and changes no grade.
func TestReverifyConfirms(t *testing.T) {
	srv, p := newServer(t, t.TempDir(), Options{Reverify: true})
	_, raw := get(t, srv.URL+"/api/state")
	var v stateView
	json.Unmarshal([]byte(raw), &v)
	if c := v.Queries[1].Candidates[0]; c.Gold == nil || *c.Gold != 2 || v.Mode != "reverify" || v.Done != 0 {
		t.Fatalf("reverify view: %s", raw)
	}
	before := loadLine(t, p, 1)
	if v := must(t, srv, "/api/query", `{"id":"q2","confirm":true}`); v.Done != 1 {
		t.Errorf("after one confirm %d re-verified", v.Done)
	}
	after := loadLine(t, p, 1)
	if after.Verified.Format("2006-01-02") != "2026-12-03" || before.Verified.Equal(after.Verified) || len(after.Gold) != 1 || after.Gold["queues/dlq"] != 2 {
		t.Errorf("confirm: %v gold %v", after.Verified, after.Gold)
	}
}
