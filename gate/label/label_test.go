package label

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/setfile"
)

const draft = `{"id":"q1","query":"rotate api key","gold":{},"segments":["known-failure"],"source":"log"}

{"id":"q2", "query": "dlq redrive", "gold": {"queues/dlq": 2}, "verified": "2025-01-02"}
`

func newServer(t *testing.T, dir string, o Options) (*httptest.Server, string) {
	t.Helper()
	p := filepath.Join(dir, "draft.jsonl")
	if _, err := os.Stat(p); err != nil {
		os.WriteFile(p, []byte(draft), 0o644)
	}
	o.SetPath = p
	if o.Labeller == "" {
		o.Labeller = "ana"
	}
	o.Now = func() time.Time { return time.Date(2026, 12, 3, 15, 0, 0, 0, time.UTC) }
	o.Token = testToken
	o.Pool = map[string][]Candidate{
		"q1": {{Doc: "security/api-keys", Title: "API keys", Texts: []string{"Keys authenticate programs. To rotate a key, create the new key, deploy it, then revoke the old one."}},
			{Doc: "security/tokens", Title: "Tokens"}, {Doc: "billing/plans", Title: "Plans"}},
		"q2": {{Doc: "queues/dlq", Title: "Dead letters"}},
	}
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return srv, p
}

// testToken is the key the test servers require.
const testToken = "k3y"

func post(t *testing.T, url, body string) (int, stateView, string) {
	t.Helper()
	return call(t, "POST", url, body)
}

// call sends one request with the run's key (and a JSON body for POST).
func call(t *testing.T, method, url, body string) (int, stateView, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if method == "POST" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("X-Recallgate-Token", testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var raw json.RawMessage
	json.NewDecoder(resp.Body).Decode(&raw)
	var v stateView
	json.Unmarshal(raw, &v)
	return resp.StatusCode, v, string(raw)
}

func TestGradeWritesTheFileLineByLine(t *testing.T) {
	dir := t.TempDir()
	srv, p := newServer(t, dir, Options{})
	code, v, raw := post(t, srv.URL+"/api/grade", `{"id":"q1","doc":"security/api-keys","grade":3,"seconds":4.23}`)
	if code != 200 || v.Done != 2 {
		t.Fatalf("%d %s", code, raw)
	}
	post(t, srv.URL+"/api/grade", `{"id":"q1","doc":"billing/plans","grade":0}`)
	data, _ := os.ReadFile(p)
	lines := strings.Split(string(data), "\n")
	if lines[0] != `{"id":"q1","query":"rotate api key","gold":{"security/api-keys":3},"segments":["known-failure"],"source":"log","verified":"2026-12-03","judgments":{"ana":{"billing/plans":0,"security/api-keys":3}},"labellers":{"ana":{"verified":"2026-12-03","seconds":{"security/api-keys":4.2}}}}` {
		t.Errorf("line 1 = %s", lines[0])
	}
	if lines[1] != "" || lines[2] != `{"id":"q2", "query": "dlq redrive", "gold": {"queues/dlq": 2}, "verified": "2025-01-02"}` {
		t.Errorf("untouched lines changed:\n%s", data)
	}
	// A restart reads the grades back.
	s2, err := New(Options{SetPath: p, Labeller: "ana", Pool: map[string][]Candidate{"q1": {{Doc: "security/api-keys"}}}})
	if err != nil {
		t.Fatal(err)
	}
	view := s2.view()
	if js, _ := json.Marshal(view); strings.Contains(string(js), `"passage":null`) {
		t.Errorf("a candidate without text must still have a passage list (the page iterates it): %s", js)
	}
	if g := view.Queries[0].Candidates[0].Grade; g == nil || *g != 3 {
		t.Errorf("after a restart: %+v", view.Queries[0].Candidates)
	}
	// Another labeller sees none of ana's grades (blind), and q2, labelled
	// before judgments were kept, shows its gold grade.
	s3, _ := New(Options{SetPath: p, Labeller: "ben", Pool: map[string][]Candidate{"q1": {{Doc: "security/api-keys"}}, "q2": {{Doc: "queues/dlq"}}}})
	view = s3.view()
	if view.Queries[0].Candidates[0].Grade != nil || view.Queries[0].Labelled {
		t.Errorf("ben sees ana's grade: %+v", view.Queries[0])
	}
	if g := view.Queries[1].Candidates[0].Grade; g == nil || *g != 2 {
		t.Errorf("a hand-labelled query's grade: %+v", view.Queries[1].Candidates)
	}
}

func TestChangedOnDiskIsNeverOverwritten(t *testing.T) {
	dir := t.TempDir()
	srv, p := newServer(t, dir, Options{})
	edited := strings.Replace(draft, "dlq redrive", "dlq redrive (edited by hand)", 1)
	os.WriteFile(p, []byte(edited), 0o644)
	code, _, raw := post(t, srv.URL+"/api/grade", `{"id":"q1","doc":"security/api-keys","grade":3}`)
	if code != http.StatusConflict || !strings.Contains(raw, "changed on disk") {
		t.Errorf("%d %s", code, raw)
	}
	if data, _ := os.ReadFile(p); string(data) != edited {
		t.Errorf("the hand edit was overwritten:\n%s", data)
	}
}

func TestGradeRules(t *testing.T) {
	srv, _ := newServer(t, t.TempDir(), Options{Binary: true})
	for body, want := range map[string]string{
		`{"id":"q1","doc":"security/api-keys","grade":2}`: "outside 0–1",
		`{"id":"nope","doc":"x","grade":1}`:               "no query",
		`{"id":"q1","doc":"x","grade":1,"extra":1}`:       "unknown field",
	} {
		if code, _, raw := post(t, srv.URL+"/api/grade", body); code == 200 || !strings.Contains(raw, want) {
			t.Errorf("%s: %d %s", body, code, raw)
		}
	}
	if code, _, raw := post(t, srv.URL+"/api/query", `{"id":"q2","unanswerable":true}`); code != 400 || !strings.Contains(raw, "has relevant documents") {
		t.Errorf("unanswerable with gold: %d %s", code, raw)
	}
	if code, v, raw := post(t, srv.URL+"/api/query", `{"id":"q1","unanswerable":true,"note":" no doc covers key rotation for SSO "}`); code != 200 || !v.Queries[0].Unanswerable || v.Queries[0].Note != "no doc covers key rotation for SSO" || v.Done != 2 {
		t.Errorf("mark unanswerable: %d %s", code, raw)
	}
	if code, _, raw := post(t, srv.URL+"/api/grade", `{"id":"q1","doc":"security/api-keys","grade":1}`); code != 400 || !strings.Contains(raw, "unanswerable") {
		t.Errorf("relevant grade on an unanswerable query: %d %s", code, raw)
	}
}

func TestPoolOrderAndPassages(t *testing.T) {
	pool := []Candidate{{Doc: "a"}, {Doc: "b"}, {Doc: "c"}, {Doc: "d"}}
	rev := []Candidate{{Doc: "d"}, {Doc: "c"}, {Doc: "b"}, {Doc: "a"}}
	x, y := order("q1", pool), order("q1", rev)
	for i := range x {
		if x[i].Doc != y[i].Doc {
			t.Fatalf("the order depends on who found what first: %v vs %v", x, y)
		}
	}
	if got := bestPassage("who can see the audit log", []string{"Who can see it? The audit log, which can be exported."}); len(got) == 0 || fmt.Sprint(got) != fmt.Sprint([]Span{{Text: "Who can "}, {Text: "see", Mark: true}, {Text: " it? The "}, {Text: "audit", Mark: true}, {Text: " "}, {Text: "log", Mark: true}, {Text: ", which can be exported."}}) {
		t.Errorf("function words are marked: %+v", got)
	}
	spans := bestPassage("how to rotate an API key", []string{
		"Billing plans and invoices are listed under Settings.",
		"To rotate a key, create the new key, deploy it, then revoke the old API key.",
	})
	var marked []string
	text := ""
	for _, s := range spans {
		text += s.Text
		if s.Mark {
			marked = append(marked, s.Text)
		}
	}
	if !strings.HasPrefix(text, "To rotate") || strings.Join(marked, ",") != "rotate,key,key,API,key" {
		t.Errorf("passage %q marks %v", text, marked)
	}
}

func TestDocumentViewAndMissingGold(t *testing.T) {
	docs := map[string][2]string{"queues/dlq": {"Dead letters", "Messages that fail <b>five</b> times land here."}}
	srv, _ := newServer(t, t.TempDir(), Options{
		Doc:    func(id string) (string, string, bool) { d, ok := docs[id]; return d[0], d[1], ok },
		Corpus: func(id string) bool { _, ok := docs[id]; return ok },
	})
	resp, err := http.Get(srv.URL + "/doc?id=queues/dlq&t=" + testToken)
	if err != nil {
		t.Fatal(err)
	}
	body := make([]byte, 4096)
	n, _ := resp.Body.Read(body)
	resp.Body.Close()
	if !strings.Contains(string(body[:n]), "&lt;b&gt;five&lt;/b&gt;") {
		t.Errorf("document text must be escaped: %s", body[:n])
	}
	if resp, _ := http.Get(srv.URL + "/doc?id=nope&t=" + testToken); resp.StatusCode != 404 {
		t.Errorf("unknown doc: %d", resp.StatusCode)
	}
	post(t, srv.URL+"/api/grade", `{"id":"q1","doc":"security/api-keys","grade":2}`)
	_, v, _ := post(t, srv.URL+"/api/grade", `{"id":"q1","doc":"security/tokens","grade":0}`)
	if got := strings.Join(v.Queries[0].MissingGold, ","); got != "security/api-keys" {
		t.Errorf("missing gold %q", got)
	}
}

// TestOnlyItsOwnPageChangesLabels: a simple cross-site POST (text/plain,
// no preflight), a request from another site, or one addressed to another
// host name (DNS rebinding) changes nothing.
func TestOnlyItsOwnPageChangesLabels(t *testing.T) {
	srv, p := newServer(t, t.TempDir(), Options{})
	before, _ := os.ReadFile(p)
	body := `{"id":"q1","doc":"security/api-keys","grade":3}`
	try := func(name string, mod func(*http.Request), want int) {
		t.Helper()
		req, _ := http.NewRequest("POST", srv.URL+"/api/grade", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Recallgate-Token", testToken)
		mod(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("%s: %d, want %d", name, resp.StatusCode, want)
		}
	}
	try("text/plain", func(r *http.Request) { r.Header.Set("Content-Type", "text/plain") }, http.StatusUnsupportedMediaType)
	try("cross-site", func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") }, http.StatusForbidden)
	try("rebinding", func(r *http.Request) { r.Host = "evil.example:80" }, http.StatusMisdirectedRequest)
	try("no key", func(r *http.Request) { r.Header.Del("X-Recallgate-Token") }, http.StatusForbidden)
	try("a wrong key", func(r *http.Request) { r.Header.Set("X-Recallgate-Token", "guess") }, http.StatusForbidden)
	if after, _ := os.ReadFile(p); string(after) != string(before) {
		t.Errorf("a refused request changed the file:\n%s", after)
	}
	try("the page itself", func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "same-origin") }, http.StatusOK)
}

// TestGoldIsDerivedFromEveryLabeller: gold is the highest grade any
// labeller gave; a second labeller's 0 never removes the first one's
// relevant document, and no write removes another labeller's grade.
func TestGoldIsDerivedFromEveryLabeller(t *testing.T) {
	dir := t.TempDir()
	ana, p := newServer(t, dir, Options{Labeller: "ana"})
	post(t, ana.URL+"/api/grade", `{"id":"q1","doc":"security/api-keys","grade":1}`)
	ben, _ := newServer(t, dir, Options{Labeller: "ben"})
	line := func() string {
		data, _ := os.ReadFile(p)
		return strings.SplitN(string(data), "\n", 2)[0]
	}
	steps := []struct {
		srv          *httptest.Server
		body, gold   string
		judgmentsHas []string
	}{
		{ben, `{"id":"q1","doc":"security/api-keys","grade":0}`, `"gold":{"security/api-keys":1}`, []string{`"ana":{"security/api-keys":1}`, `"ben":{"security/api-keys":0}`}},
		{ben, `{"id":"q1","doc":"security/api-keys","grade":3}`, `"gold":{"security/api-keys":3}`, []string{`"ana":{"security/api-keys":1}`, `"ben":{"security/api-keys":3}`}},
		{ana, `{"id":"q1","doc":"security/api-keys","grade":null}`, `"gold":{"security/api-keys":3}`, []string{`"ben":{"security/api-keys":3}`}},
		{ben, `{"id":"q1","doc":"security/api-keys","grade":0}`, `"gold":{}`, []string{`"ben":{"security/api-keys":0}`}},
	}
	for i, st := range steps {
		// The other labeller wrote the file: this one's write is refused
		// until its page reloads, which reads the file again.
		code, _, _ := post(t, st.srv.URL+"/api/grade", st.body)
		if code == http.StatusConflict {
			req, _ := http.NewRequest("GET", st.srv.URL+"/api/state", nil)
			req.Header.Set("X-Recallgate-Token", testToken)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var v stateView
			json.NewDecoder(resp.Body).Decode(&v)
			resp.Body.Close()
			if !v.Reloaded || len(v.Changed) != 1 || v.Changed[0] != "q1" {
				t.Errorf("step %d: the reload did not read the file again or say what changed: %v %v", i, v.Reloaded, v.Changed)
			}
			code, _, _ = post(t, st.srv.URL+"/api/grade", st.body)
		}
		if code != 200 {
			t.Fatalf("step %d: %d", i, code)
		}
		got := line()
		if !strings.Contains(got, st.gold) {
			t.Errorf("step %d: %s, want %s", i, got, st.gold)
		}
		for _, j := range st.judgmentsHas {
			if !strings.Contains(got, j) {
				t.Errorf("step %d: %s lacks %s", i, got, j)
			}
		}
	}
}

// TestNotesPerLabeller: a labeller's note goes to notes[labeller], the
// set's own note stays as sample wrote it, and a second labeller sees
// neither the first one's note nor can overwrite it.
func TestNotesPerLabeller(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "draft.jsonl"), []byte(`{"id":"q1","query":"rotate api key","gold":{},"note":"asked 159 times in the log (first on line 2)"}
{"id":"q2","query":"dlq redrive","gold":{"queues/dlq":2}}
`), 0o644)
	ana, p := newServer(t, dir, Options{})
	code, v, raw := post(t, ana.URL+"/api/query", `{"id":"q1","note":"  SSO keys are not covered  "}`)
	if code != 200 || v.Queries[0].Note != "SSO keys are not covered" || v.Queries[0].SetNote != "asked 159 times in the log (first on line 2)" {
		t.Fatalf("ana's note: %d %s", code, raw)
	}
	ben, _ := newServer(t, dir, Options{Labeller: "ben"})
	code, v, raw = post(t, ben.URL+"/api/query", `{"id":"q1","note":"rotation is in security/api-keys"}`)
	if code != 200 || v.Queries[0].Note != "rotation is in security/api-keys" || strings.Contains(raw, "SSO") {
		t.Fatalf("ben sees ana's note, or lost his own: %d %s", code, raw)
	}
	load := func() *gate.Set {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		set, err := setfile.ParseDraft(bytes.NewReader(data), p)
		if err != nil {
			t.Fatal(err)
		}
		return set
	}
	q := load().Query("q1")
	if q.Note != "asked 159 times in the log (first on line 2)" || q.Notes["ana"] != "SSO keys are not covered" || q.Notes["ben"] != "rotation is in security/api-keys" {
		t.Errorf("on disk: note %q notes %v", q.Note, q.Notes)
	}
	// An emptied note is removed, the other labeller's stays.
	if code, _, raw := post(t, ben.URL+"/api/query", `{"id":"q1","note":""}`); code != 200 {
		t.Fatalf("clear: %d %s", code, raw)
	}
	if q := load().Query("q1"); len(q.Notes) != 1 || q.Notes["ana"] == "" {
		t.Errorf("after ben cleared his note: %v", q.Notes)
	}
}

func TestExportRefusesIDsQrelsCannotHold(t *testing.T) {
	set := &gate.Set{Queries: []*gate.Query{{ID: "q1", Text: "x", Gold: map[string]int{"docs/with space.md": 2}}}}
	var b bytes.Buffer
	if _, err := Export(&b, set, "qrels"); err == nil || !strings.Contains(err.Error(), "white space") {
		t.Errorf("a document id with a space in qrels: %v, wrote %q", err, b.String())
	}
}

// TestExportKeepsDerivedZeros: a document every labeller graded 0 is not
// in gold (derived), yet qrels carry it as judged 0.
func TestExportKeepsDerivedZeros(t *testing.T) {
	q := &gate.Query{ID: "q1", Text: "x", Gold: map[string]int{"b": 2}, Judgments: map[string]map[string]int{"ana": {"a": 0, "b": 2}, "ben": {"c": 0}}}
	var b bytes.Buffer
	if _, err := Export(&b, &gate.Set{Queries: []*gate.Query{q}}, "qrels"); err != nil || b.String() != "q1 0 a 0\nq1 0 b 2\nq1 0 c 0\n" {
		t.Errorf("export: %v %q", err, b.String())
	}
}
