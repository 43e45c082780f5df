package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/setfile"
)

// labelFixture is a draft of three demo queries, unlabelled, and a config
// whose builtin retrievers (two chunkings) make the pool.
func labelFixture(t *testing.T) (dir, cfg, draft string) {
	t.Helper()
	dir = t.TempDir()
	copyDemo(t, dir)
	draft = write(t, dir, "draft.jsonl", `{"id":"q-a","query":"rotate api key","gold":{},"segments":["known-failure"],"source":"log"}
{"id":"q-b","query":"where can I see who deleted a queue","gold":{},"segments":["ordinary"],"source":"log"}
{"id":"q-c","query":"dlq redrive","gold":{},"segments":["known-failure"],"source":"log"}
`)
	cfg = write(t, dir, "recallgate.toml", "set = \"draft.jsonl\"\n[base.retriever]\ntype = \"builtin\"\ncorpus = \"demo/corpus\"\ntitle_boost = 2.0\n[head.retriever]\ntype = \"builtin\"\ncorpus = \"demo/corpus\"\nchunk_words = 12\n")
	return dir, cfg, draft
}

// startLabel runs `recallgate label` until the test ends and returns the
// page's address, read from what the command prints.
func startLabel(t *testing.T, args ...string) (string, context.CancelFunc) {
	t.Helper()
	return startServing(t, "label", args...)
}

// startServing runs a command that serves the labelling page (label or
// reverify) until the test ends.
func startServing(t *testing.T, name string, args ...string) (string, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	var errb strings.Builder
	go func() {
		done <- run(ctx, append([]string{name}, args...), func(k string) string { return "" }, pw, &errb)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	go io.Copy(io.Discard, pr)
	m := regexp.MustCompile(`http://127\.0\.0\.1:\d+/\?t=[0-9a-f]{32}`).FindString(line)
	if err != nil || m == "" {
		cancel()
		t.Fatalf("label did not start: %q %v (exit %d) %s", line, err, <-done, errb.String())
	}
	var once sync.Once
	stop := func() { once.Do(func() { halt(t, cancel, done, &errb) }) }
	t.Cleanup(stop)
	return m, stop
}

func halt(t *testing.T, cancel context.CancelFunc, done chan int, errb *strings.Builder) {
	{
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("label exited %d: %s", code, errb.String())
			}
		case <-time.After(10 * time.Second):
			t.Error("label did not stop")
		}
	}
}

type apiState struct {
	Done    int `json:"done"`
	Queries []struct {
		ID         string `json:"id"`
		Candidates []struct {
			Doc   string `json:"doc"`
			Title string `json:"title"`
			Grade *int   `json:"grade"`
		} `json:"candidates"`
	} `json:"queries"`
}

// apiURL is the page's API path at base, with the run's key base carries.
func apiURL(t *testing.T, base, path string) string {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + path
	return u.String()
}

func getState(t *testing.T, base string) apiState {
	t.Helper()
	resp, err := http.Get(apiURL(t, base, "api/state"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var s apiState
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestLabelPageInChromium grades with real key presses in headless
// Chromium (through the DevTools protocol's input pipeline), checks the
// set file on disk, reloads the page, restarts the server and finds the
// grades still there.
func TestLabelPageInChromium(t *testing.T) {
	browser := needChromium(t, "")
	dir, cfg, draft := labelFixture(t)
	base, stop := startLabel(t, "--config", cfg, "--labeller", "ana", "--depth", "4")
	before := getState(t, base)
	if len(before.Queries) != 3 || len(before.Queries[0].Candidates) < 4 || before.Queries[0].Candidates[0].Title == "" {
		t.Fatalf("pool %+v", before)
	}
	d := startDevtools(t, browser, filepath.Join(dir, "profile"))
	d.navigate(t, base)
	d.waitFor(t, `document.querySelectorAll(".card").length >= 4`)
	focused := `(document.querySelector(".card.focus")||{dataset:{}}).dataset`
	// q-a: first card 2, next card 0; then the next query: first card 1.
	d.press(t, "2")
	d.waitFor(t, focused+`.grade === "2"`)
	d.press(t, "j")
	d.waitFor(t, focused+`.doc === `+fmt.Sprintf("%q", before.Queries[0].Candidates[1].Doc))
	d.press(t, "0")
	d.waitFor(t, focused+`.grade === "0"`)
	d.press(t, "n")
	d.waitFor(t, `document.getElementById("query").textContent === "where can I see who deleted a queue"`)
	d.press(t, "1")
	d.waitFor(t, focused+`.grade === "1"`)
	d.waitFor(t, `document.getElementById("progress").textContent === "labelled 2 of 3"`)
	shot := filepath.Join(dir, "label.png")
	if p := os.Getenv("RECALLGATE_LABEL_SCREENSHOT"); p != "" { // bench/label-screenshot.sh
		shot = p
	}
	d.screenshot(t, shot)

	a0, a1, b0 := before.Queries[0].Candidates[0].Doc, before.Queries[0].Candidates[1].Doc, before.Queries[1].Candidates[0].Doc
	data, _ := os.ReadFile(draft)
	lines := strings.Split(string(data), "\n")
	today := time.Now().Format("2006-01-02")
	if want := fmt.Sprintf(`"gold":{%q:2}`, a0); !strings.Contains(lines[0], want) || !strings.Contains(lines[0], `"judgments":{"ana":{`) || !strings.Contains(lines[0], fmt.Sprintf("%q:0", a1)) || !strings.Contains(lines[0], `"verified":"`+today+`"`) {
		t.Errorf("q-a on disk: %s (want %s 2, %s 0)", lines[0], a0, a1)
	}
	if !strings.Contains(lines[1], fmt.Sprintf(`"gold":{%q:1}`, b0)) {
		t.Errorf("q-b on disk: %s (want %s 1)", lines[1], b0)
	}
	if lines[2] != `{"id":"q-c","query":"dlq redrive","gold":{},"segments":["known-failure"],"source":"log"}` {
		t.Errorf("an ungraded line changed: %s", lines[2])
	}

	// Reload the page on q-a: the grades are shown from the server, and
	// query terms are marked in the passages.
	shows := func(when string) {
		t.Helper()
		d.waitFor(t, `document.getElementById("query").textContent === "rotate api key"`)
		for doc, g := range map[string]string{a0: "2", a1: "0"} {
			v, _ := d.eval(fmt.Sprintf(`(document.querySelector('.card[data-doc=%q]')||{dataset:{}}).dataset.grade || ""`, doc))
			if v != fmt.Sprintf("%q", g) {
				t.Errorf("%s: card %s shows grade %s, want %s", when, doc, v, g)
			}
		}
		if v, _ := d.eval(`Array.from(document.querySelectorAll("mark")).map(function(m){return m.textContent.toLowerCase();}).filter(function(w){return w==="rotate"||w==="key"||w==="api";}).length > 0`); v != "true" {
			t.Errorf("%s: no query term is marked in the passages", when)
		}
	}
	d.navigate(t, base+"&again=1#q=q-a") // a new URL: a full load, not a jump within the page
	shows("after a reload")
	stop()
	base, _ = startLabel(t, "--config", cfg, "--labeller", "ana", "--depth", "4")
	d.navigate(t, base+"#q=q-a")
	shows("after a server restart")
	if s := getState(t, base); s.Done != 2 {
		t.Errorf("after a restart %d labelled", s.Done)
	}

	// Someone edits the file while the page is open: the next key press
	// is refused, the page says why, and the edit stays.
	edited := strings.Replace(string(must(os.ReadFile(draft))), "dlq redrive", "dlq redrive (edited)", 1)
	os.WriteFile(draft, []byte(edited), 0o644)
	d.press(t, "3")
	d.waitFor(t, `!document.getElementById("error").hidden && document.getElementById("error").textContent.indexOf("changed on disk") >= 0`)
	if now, _ := os.ReadFile(draft); string(now) != edited {
		t.Error("the page overwrote a file edited on disk")
	}
	// A reload reads it again and says which query changed.
	d.navigate(t, base+"&again=2#q=q-a")
	d.waitFor(t, `document.getElementById("reloaded").textContent.indexOf("1 query changed (q-c)") >= 0`)
}

// TestLabelRefusals: a pool config whose retriever fails stops label with
// exit 3 naming it; a draft changed on disk while the page is open is
// never overwritten, and a reload continues from it.
func TestLabelRefusals(t *testing.T) {
	dir, cfg, draft := labelFixture(t)
	broken := write(t, dir, "broken.toml", "[retriever]\ntype = \"command\"\ncommand = [\"/nonexistent/retriever\"]\n")
	code, _, errs := rg(t, "label", "--config", cfg, "--labeller", "ana", "--pool-config", broken)
	if code != 3 || !strings.Contains(errs, "broken.toml") {
		t.Errorf("failing pool config: exit %d %s", code, errs)
	}
	base, _ := startLabel(t, "--config", cfg, "--labeller", "ana")
	s := getState(t, base)
	edited := strings.Replace(string(must(os.ReadFile(draft))), "dlq redrive", "dlq redrive how", 1)
	os.WriteFile(draft, []byte(edited), 0o644)
	grade := func() (int, string) {
		resp, err := http.Post(apiURL(t, base, "api/grade"), "application/json", strings.NewReader(fmt.Sprintf(`{"id":"q-a","doc":%q,"grade":3}`, s.Queries[0].Candidates[0].Doc)))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, body := grade(); code != http.StatusConflict || !strings.Contains(body, "changed on disk") {
		t.Errorf("%d %s", code, body)
	}
	if now, _ := os.ReadFile(draft); string(now) != edited {
		t.Error("the edited draft was overwritten")
	}
	// Reloading the page reads the file again: the grade then goes in
	// beside the edit, which stays.
	s = getState(t, base)
	if code, body := grade(); code != http.StatusOK {
		t.Errorf("after a reload: %d %s", code, body)
	}
	if now := string(must(os.ReadFile(draft))); !strings.Contains(now, "dlq redrive how") || !strings.Contains(now, `"judgments":{"ana":{`) {
		t.Errorf("after a reload the file is:\n%s", now)
	}
}

// TestReverify opens the page on the queries verified longest ago (never
// verified first) and shows a gold document gone from the corpus as a
// data-quality bug.
func TestReverify(t *testing.T) {
	dir, cfg, _ := labelFixture(t)
	write(t, dir, "draft.jsonl", `{"id":"old","query":"rotate api key","gold":{"security/api-keys":3},"verified":"2024-01-05"}
{"id":"new","query":"dlq redrive","gold":{"queues/dead-letter":3},"verified":"2026-11-20"}
{"id":"gone","query":"where can I see who deleted a queue","gold":{"security/audit-trail":2},"verified":"2025-03-01"}
{"id":"never","query":"max message size","gold":{"limits/message-size":1}}
`)
	base, _ := startServing(t, "reverify", "--config", cfg, "--labeller", "ana", "--sample", "3")
	resp, err := http.Get(apiURL(t, base, "api/state"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Queries []struct {
			ID          string   `json:"id"`
			MissingGold []string `json:"missing_gold"`
		} `json:"queries"`
	}
	json.NewDecoder(resp.Body).Decode(&s)
	resp.Body.Close()
	var ids []string
	for _, q := range s.Queries {
		ids = append(ids, q.ID)
	}
	if strings.Join(ids, ",") != "never,old,gone" {
		t.Errorf("reverify shows %v, want the three oldest, never verified first", ids)
	}
	if len(s.Queries) == 3 && strings.Join(s.Queries[2].MissingGold, ",") != "security/audit-trail" {
		t.Errorf("missing gold %+v", s.Queries[2])
	}
}

// unjudgedFixture is six queries with one gold document each and a judged
// non-relevant "z"; the head pushes the gold below the context of q1–q3
// behind n1 and n2, which nobody judged. Its policy reads them as a range
// (unjudged = "range"), so the change is inconclusive until judged.
func unjudgedFixture(t *testing.T) (dir, cfg string) {
	t.Helper()
	dir = t.TempDir()
	var set, base, head strings.Builder
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&set, `{"id":"q%d","query":"question %d","gold":{"a%d":2,"z":0}}`+"\n", i, i, i)
		fmt.Fprintf(&base, `{"id":"q%d","hits":[{"doc":"a%d"},{"doc":"z"},{"doc":"f"}]}`+"\n", i, i)
		if i <= 3 {
			fmt.Fprintf(&head, `{"id":"q%d","hits":[{"doc":"n1","text":"an unjudged passage"},{"doc":"n2"},{"doc":"a%d"}]}`+"\n", i, i)
		} else {
			fmt.Fprintf(&head, `{"id":"q%d","hits":[{"doc":"a%d"},{"doc":"z"},{"doc":"f"}]}`+"\n", i, i)
		}
	}
	write(t, dir, "set.jsonl", set.String())
	write(t, dir, "base.jsonl", base.String())
	write(t, dir, "head.jsonl", head.String())
	cfg = write(t, dir, "recallgate.toml", "set = \"set.jsonl\"\n[depth]\ncandidates = 3\ncontext = 2\n[gate]\nunjudged = \"range\"\n[base.retriever]\ntype = \"file\"\npath = \"base.jsonl\"\n[head.retriever]\ntype = \"file\"\npath = \"head.jsonl\"\n")
	return dir, cfg
}

// TestUnjudgedLoopInChromium: a head whose context is full of documents
// nobody judged is inconclusive and names them, with its label debt (the
// report's unjudged.label_debt, read back through the strict reader by
// label --from-report); label --from-report shows exactly those pairs to
// two labellers in turn, blind; judging them with real key presses, an
// adjudication of their one disagreement, and running the gate again
// turns the verdict into a real one.
func TestUnjudgedLoopInChromium(t *testing.T) {
	dir, cfg := unjudgedFixture(t)
	reportPath := filepath.Join(dir, "report.json")
	code, out, errs := rg(t, "gate", "--config", cfg, "--json-out", reportPath)
	if code != 0 || !strings.HasPrefix(out, "INCONCLUSIVE") {
		t.Fatalf("gate: exit %d, want 0 and inconclusive\n%s%s", code, out, errs)
	}
	for _, want := range []string{
		"inconclusive: mean nDCG@2 dropped by 0.500 (limit 0.050, max_ndcg_drop)",
		"note: the range of the head's nDCG@2 cannot confirm the drop: were the 6 unjudged documents in the head's top 2 of the 3 queries whose nDCG@2 dropped (q1, q2, q3) relevant, the mean nDCG@2 would ",
		"Label debt: 6 unjudged documents in 3 queries are new in the head's top 2",
		// precision@2: q1–q3 0 (n1, n2), q4–q6 1/2 (a, z) → 0.250; with n1 and n2 relevant q1–q3 are 1 → 0.750.
		"Head precision@2 is 0.250 … 0.750",
		"  q1  unjudged in head context: n1, n2",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	var rep struct {
		Unjudged struct {
			Known bool
			New   []struct {
				ID   string
				Docs []string
			}
			LabelDebt struct{ Documents, Queries int } `json:"label_debt"`
		}
	}
	if err := json.Unmarshal(must(os.ReadFile(reportPath)), &rep); err != nil || !rep.Unjudged.Known || len(rep.Unjudged.New) != 3 || rep.Unjudged.LabelDebt.Documents != 6 || rep.Unjudged.LabelDebt.Queries != 3 {
		t.Fatalf("report unjudged %+v %v", rep.Unjudged, err)
	}

	// A gold-only set cannot say what is unjudged: the report says so once
	// and label --from-report refuses it.
	var plain strings.Builder
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&plain, `{"id":"q%d","query":"question %d","gold":{"a%d":2}}`+"\n", i, i, i)
	}
	plainSet := write(t, dir, "plain.jsonl", plain.String())
	plainReport := filepath.Join(dir, "plain.json")
	code, out, _ = rg(t, "gate", "--config", cfg, "--set", plainSet, "--json-out", plainReport)
	if code != 1 || strings.Count(out, "unjudged counts are unknown") != 1 {
		t.Errorf("gold-only gate: exit %d\n%s", code, out)
	}
	code, _, errs = rg(t, "label", "--config", cfg, "--set", plainSet, "--labeller", "ana", "--from-report", plainReport)
	if code != 2 || !strings.Contains(errs, "plain.json: unjudged: the report's set records no judgements") {
		t.Errorf("label --from-report on a gold-only report: exit %d %s", code, errs)
	}

	browser := needChromium(t, "the labelling half")
	base, stop := startLabel(t, "--config", cfg, "--labeller", "ana", "--from-report", reportPath)
	st := getState(t, base)
	var got []string
	for _, q := range st.Queries {
		var docs []string
		for _, c := range q.Candidates {
			docs = append(docs, c.Doc)
		}
		sort.Strings(docs)
		got = append(got, q.ID+":"+strings.Join(docs, ","))
	}
	if strings.Join(got, " ") != "q1:n1,n2 q2:n1,n2 q3:n1,n2" {
		t.Fatalf("the page offers %v, want exactly the unjudged pairs", got)
	}
	if st.Done != 0 {
		t.Errorf("%d queries count as labelled before any grade", st.Done)
	}
	d := startDevtools(t, browser, filepath.Join(dir, "profile"))
	d.navigate(t, base)
	focused := `(document.querySelector(".card.focus")||{dataset:{}}).dataset`
	for i := 1; i <= 3; i++ {
		d.waitFor(t, fmt.Sprintf(`document.getElementById("query").textContent === "question %d"`, i))
		if v, _ := d.eval(`Array.from(document.querySelectorAll(".card")).map(function(c){return c.dataset.doc;}).sort().join(",")`); v != `"n1,n2"` {
			t.Errorf("question %d shows cards %s", i, v)
		}
		d.press(t, "0")
		d.waitFor(t, focused+`.grade === "0"`)
		d.press(t, "j")
		d.waitFor(t, focused+`.grade === undefined`)
		d.press(t, "0")
		d.waitFor(t, focused+`.grade === "0"`)
		if i < 3 {
			d.press(t, "n")
		}
	}
	d.waitFor(t, `document.getElementById("progress").textContent === "labelled 3 of 3"`)
	stop()
	for i, line := range strings.Split(strings.TrimSpace(string(must(os.ReadFile(filepath.Join(dir, "set.jsonl"))))), "\n") {
		judged := strings.Contains(line, `"judgments":{"ana":{"n1":0,"n2":0}}`)
		if judged != (i < 3) || !strings.Contains(line, fmt.Sprintf(`"gold":{"a%d":2,"z":0}`, i+1)) {
			t.Errorf("set line %d after labelling: %s", i+1, line)
		}
	}

	// ben, from the same report: the same pairs, blind to ana's grades;
	// he finds n1 relevant (1) for question 1, the rest not.
	base, stop = startLabel(t, "--config", cfg, "--labeller", "ben", "--from-report", reportPath)
	if st := getState(t, base); st.Done != 0 || len(st.Queries) != 3 {
		t.Errorf("ben's page: %d queries, %d labelled before any grade", len(st.Queries), st.Done)
	}
	d.navigate(t, base)
	for i := 1; i <= 3; i++ {
		d.waitFor(t, fmt.Sprintf(`document.getElementById("query").textContent === "question %d"`, i))
		if n, _ := d.eval(`document.querySelectorAll(".card[data-grade]").length`); n != "0" {
			t.Errorf("ben's question %d shows %s graded cards", i, n)
		}
		for j := 0; j < 2; j++ {
			doc, _ := d.eval(focused + `.doc`)
			g := "0"
			if i == 1 && doc == `"n1"` {
				g = "1"
			}
			d.press(t, g)
			d.waitFor(t, focused+`.grade === "`+g+`"`)
			if j == 0 {
				d.press(t, "j")
				d.waitFor(t, focused+`.grade === undefined`)
			}
		}
		if i < 3 {
			d.press(t, "n")
		}
	}
	d.waitFor(t, `document.getElementById("progress").textContent === "labelled 3 of 3"`)
	stop()

	// cara decides the one disagreement (q1's n1: 0 against 1): not relevant.
	base, stop = startLabel(t, "--config", cfg, "--labeller", "cara", "--adjudicate")
	if st := getState(t, base); len(st.Queries) != 1 || st.Queries[0].ID != "q1" || len(st.Queries[0].Candidates) != 1 || st.Queries[0].Candidates[0].Doc != "n1" {
		t.Fatalf("adjudication shows %+v", st.Queries)
	}
	d.navigate(t, base)
	d.waitFor(t, `document.querySelectorAll(".card").length === 1`)
	d.press(t, "0")
	d.waitFor(t, focused+`.grade === "0"`)
	d.waitFor(t, `document.getElementById("progress").textContent === "decided 1 of 1"`)
	stop()
	qs, err := gateLoadDraft(filepath.Join(dir, "set.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range qs {
		ana, ben := q.Judgments["ana"], q.Judgments["ben"]
		wantBen := 0
		if i == 0 {
			wantBen = 1
		}
		if i < 3 && (len(ana) != 2 || ana["n1"] != 0 || ana["n2"] != 0 || len(ben) != 2 || ben["n1"] != wantBen || ben["n2"] != 0 || q.Gold["n1"] != 0 || q.Gold[fmt.Sprintf("a%d", i+1)] != 2) {
			t.Errorf("%s after two labellers: judgments %v, gold %v", q.ID, q.Judgments, q.Gold)
		}
		if i >= 3 && len(q.Judgments) != 0 {
			t.Errorf("%s was offered: %v", q.ID, q.Judgments)
		}
	}
	if a := qs[0].Adjudicated["n1"]; a.By != "cara" || a.Grade != 0 {
		t.Errorf("q1's n1 decision: %+v", a)
	}

	// Judged now: the same head is a real regression of the context.
	code, out, _ = rg(t, "gate", "--config", cfg)
	if code != 1 || !strings.Contains(out, "fail: mean nDCG@2 dropped by 0.500 (limit 0.050, max_ndcg_drop)") || strings.Contains(out, "unjudged in head context") {
		t.Errorf("after judging: exit %d\n%s", code, out)
	}

}

// TestOtherSitesCannotLabel: a page on another loopback origin that frames
// the labelling page, or navigates to it with key presses in the fragment,
// with or without the run's key, changes nothing on disk: the page needs
// its key, refuses to be framed, and replays nothing from its URL.
func TestOtherSitesCannotLabel(t *testing.T) {
	browser := needChromium(t, "")
	dir, cfg, draft := labelFixture(t)
	base, _ := startLabel(t, "--config", cfg, "--labeller", "ana", "--depth", "4")
	before := string(must(os.ReadFile(draft)))
	keyless := strings.SplitN(base, "?", 2)[0]
	attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!DOCTYPE html><html><body>
<iframe id="a" src="%s#keys=2,j,0,n"></iframe>
<iframe id="b" src="%s#keys=2,j,0,n"></iframe>
<script>setTimeout(function(){ location = %q; }, 1500);</script>
</body></html>`, base, keyless, keyless+"#keys=3,j,3")
	}))
	t.Cleanup(attacker.Close)
	d := startDevtools(t, browser, filepath.Join(dir, "profile"))
	d.navigate(t, attacker.URL)
	time.Sleep(3 * time.Second)
	// And the page itself, opened with its key and key presses in the URL.
	d.navigate(t, base+"#keys=3,j,3,n,3")
	d.waitFor(t, `document.querySelectorAll(".card").length >= 1`)
	time.Sleep(time.Second)
	if after := string(must(os.ReadFile(draft))); after != before {
		t.Errorf("another site changed the labels:\n%s", after)
	}
	resp, err := http.Get(keyless)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get("X-Frame-Options") != "DENY" || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Errorf("the page without its key: %d, X-Frame-Options %q, CSP %q", resp.StatusCode, resp.Header.Get("X-Frame-Options"), resp.Header.Get("Content-Security-Policy"))
	}
}

// TestOneLabelPerFile: a second label on the same set stops at once,
// naming the process that holds it; the lock goes when the first stops.
func TestOneLabelPerFile(t *testing.T) {
	_, cfg, draft := labelFixture(t)
	_, stop := startLabel(t, "--config", cfg, "--labeller", "ana", "--depth", "2")
	code, _, errs := rg(t, "label", "--config", cfg, "--labeller", "ben", "--depth", "2")
	if code != 2 || !strings.Contains(errs, fmt.Sprintf("in use by another recallgate (pid %d)", os.Getpid())) {
		t.Errorf("second label: exit %d %s", code, errs)
	}
	stop()
	if _, err := os.Stat(draft + ".lock"); !os.IsNotExist(err) {
		t.Error("the lock outlived the first label")
	}
}

// TestLabelExport: the labels as TREC qrels (zeros kept, unanswerable and
// unlabelled queries left out with a warning), read back by validate as a
// set of their own; a bad format is a usage error.
func TestLabelExport(t *testing.T) {
	dir := t.TempDir()
	set := write(t, dir, "draft.jsonl", `{"id":"q2","query":"dlq redrive","gold":{"queues/dlq":2,"queues/fifo":0},"judgments":{"ana":{"queues/dlq":2,"queues/fifo":0}}}
{"id":"q1","query":"rotate api key","gold":{"security/api-keys":3}}
{"id":"q3","query":"kafka consumer groups","gold":{},"unanswerable":true}
{"id":"q4","query":"not labelled yet","gold":{}}
`)
	code, out, errs := rg(t, "label", "--set", set, "--export", "qrels")
	want := "q2 0 queues/dlq 2\nq2 0 queues/fifo 0\nq1 0 security/api-keys 3\n"
	if code != 0 || out != want {
		t.Fatalf("exit %d, qrels:\n%s\nwant:\n%s\nstderr: %s", code, out, want, errs)
	}
	if !strings.Contains(errs, "q3: unanswerable, which qrels cannot say") || !strings.Contains(errs, "q4: nothing judged yet") {
		t.Errorf("warnings: %s", errs)
	}
	qrels := write(t, dir, "labels.qrels", out)
	if code, _, errs := rg(t, "validate", "--set", qrels); code != 0 {
		t.Errorf("the exported qrels do not validate: exit %d %s", code, errs)
	}
	code, out, _ = rg(t, "label", "--set", set, "--export", "jsonl")
	if code != 0 || strings.Count(out, "\n") != 4 || !strings.Contains(out, `"judgments":{"ana":{"queues/dlq":2,"queues/fifo":0}}`) {
		t.Errorf("jsonl export: exit %d\n%s", code, out)
	}
	if code, _, errs := rg(t, "label", "--set", set, "--export", "csv"); code != 2 || !strings.Contains(errs, "want qrels or jsonl") {
		t.Errorf("bad format: exit %d %s", code, errs)
	}
}

// TestTwoLabellersAndAdjudicationInChromium: ana and ben label the same
// three queries in headless Chromium with real key presses, disagreeing on
// every kind of case (graded 3 vs 1, relevant vs not, unanswerable vs
// relevant) and agreeing on one; ben's page shows nothing of ana's; cara
// adjudicates on the --adjudicate page, which shows both grades; on disk
// both labellers' grades stay, gold follows the rule, and each decision
// names cara.
func TestTwoLabellersAndAdjudicationInChromium(t *testing.T) {
	browser := needChromium(t, "")
	dir, cfg, draft := labelFixture(t)
	d := startDevtools(t, browser, filepath.Join(dir, "profile"))
	focused := `(document.querySelector(".card.focus")||{dataset:{}}).dataset`
	text := func(id string) string {
		v, _ := d.eval(fmt.Sprintf(`document.getElementById(%q).textContent`, id))
		var s string
		json.Unmarshal([]byte(v), &s)
		return s
	}
	open := func(who string, extra ...string) (apiState, func()) {
		base, stop := startLabel(t, append([]string{"--config", cfg, "--labeller", who, "--depth", "3"}, extra...)...)
		d.navigate(t, base)
		d.waitFor(t, `document.querySelectorAll(".card").length >= 1`)
		return getState(t, base), stop
	}
	gradeAndWait := func(k string) {
		t.Helper()
		d.press(t, k)
		d.waitFor(t, focused+`.grade === "`+k+`"`)
	}

	// ana: q-a card 1 → 3, card 2 → 1; q-b unanswerable (and unsure);
	// q-c card 1 → 2. Then z takes back a stray grade.
	pool, stop := open("ana")
	a0, a1, b0, c0 := pool.Queries[0].Candidates[0].Doc, pool.Queries[0].Candidates[1].Doc, pool.Queries[1].Candidates[0].Doc, pool.Queries[2].Candidates[0].Doc
	gradeAndWait("3")
	d.press(t, "j")
	gradeAndWait("1")
	d.press(t, "n")
	d.waitFor(t, `document.getElementById("query").textContent === "where can I see who deleted a queue"`)
	d.press(t, "u")
	d.waitFor(t, `document.getElementById("status").textContent.indexOf("unanswerable") >= 0`)
	d.press(t, "?")
	d.waitFor(t, `document.getElementById("status").textContent.indexOf("unsure") >= 0`)
	d.press(t, "n")
	gradeAndWait("2")
	d.press(t, "j")
	gradeAndWait("0")
	d.press(t, "z") // undo the stray 0
	d.waitFor(t, `document.querySelectorAll(".card[data-grade]").length === 1`)
	d.waitFor(t, `document.getElementById("progress").textContent === "labelled 3 of 3"`)
	// The query stays in view when the page scrolls to its end (on a
	// small screen, so that the page does scroll past the heading).
	if _, err := d.call("Emulation.setDeviceMetricsOverride", map[string]any{"width": 900, "height": 420, "deviceScaleFactor": 1, "mobile": false}); err != nil {
		t.Fatal(err)
	}
	if v, _ := d.eval(`(function(){window.scrollTo(0, document.body.scrollHeight); var r=document.getElementById("query").getBoundingClientRect(); return window.scrollY > 0 && r.top >= 0 && r.bottom <= window.innerHeight;})()`); v != "true" {
		t.Errorf("scrolled to the end, the query heading is out of view (or the page did not scroll): %s", v)
	}
	d.call("Emulation.clearDeviceMetricsOverride", map[string]any{})
	if p := text("position"); !strings.Contains(p, fmt.Sprintf("1 of %d documents graded", len(pool.Queries[2].Candidates))) || !strings.Contains(p, "verified ") {
		t.Errorf("ana's position line: %q", p)
	}
	stop()

	// ben sees nothing of ana's: no grade, no mark, no date, no progress.
	_, stop = open("ben")
	for i := 0; i < 3; i++ {
		if n, _ := d.eval(`document.querySelectorAll(".card[data-grade]").length`); n != "0" {
			t.Errorf("ben's query %d shows %s graded cards", i+1, n)
		}
		if st, p := text("status"), text("position"); st != "" || strings.Contains(p, "verified") || !strings.Contains(p, " 0 of ") {
			t.Errorf("ben's query %d: status %q, position %q", i+1, st, p)
		}
		if i == 0 && text("progress") != "labelled 0 of 3" {
			t.Errorf("ben starts at %q", text("progress"))
		}
		d.press(t, "n")
	}
	d.press(t, "p")
	d.press(t, "p")
	d.waitFor(t, `document.getElementById("query").textContent === "rotate api key"`)
	gradeAndWait("1") // a0: 3 vs 1
	d.press(t, "j")
	gradeAndWait("0") // a1: 1 vs 0
	d.press(t, "n")
	gradeAndWait("2") // b0: unanswerable vs 2
	d.press(t, "n")
	gradeAndWait("2") // c0: agreed
	stop()

	// cara adjudicates: two queries, both grades on each card.
	adj, stop := open("cara", "--adjudicate")
	if len(adj.Queries) != 2 || adj.Queries[0].ID != "q-a" || adj.Queries[1].ID != "q-b" {
		t.Fatalf("adjudication shows %+v", adj.Queries)
	}
	raw, _ := d.eval(`Array.from(document.querySelectorAll(".others")).map(function(e){return e.textContent;}).join("|")`)
	var o string
	json.Unmarshal([]byte(raw), &o)
	if !strings.Contains(o, "ana 3 · ben 1") || !strings.Contains(o, "ana 1 · ben 0") {
		t.Errorf("the adjudication cards show %s", o)
	}
	if p := os.Getenv("RECALLGATE_ADJUDICATE_SCREENSHOT"); p != "" {
		d.screenshot(t, p)
	}
	d.press(t, "k") // the first card is a0 or a1 in document order
	first, _ := d.eval(focused + `.doc`)
	decide := map[string]string{a0: "2", a1: "0"}
	gradeAndWait(decide[strings.Trim(first, `"`)])
	d.press(t, "j")
	second, _ := d.eval(focused + `.doc`)
	gradeAndWait(decide[strings.Trim(second, `"`)])
	d.press(t, "n")
	gradeAndWait("0") // b0: not relevant after all: the query is unanswerable
	d.waitFor(t, `document.getElementById("progress").textContent === "decided 2 of 2"`)
	stop()

	set, err := gateLoadDraft(draft)
	if err != nil {
		t.Fatal(err)
	}
	qa, qb, qc := set[0], set[1], set[2]
	if qa.Judgments["ana"][a0] != 3 || qa.Judgments["ben"][a0] != 1 || qa.Judgments["ana"][a1] != 1 || qa.Judgments["ben"][a1] != 0 || qb.Judgments["ben"][b0] != 2 || !qb.Marks["ana"].Unanswerable || !qb.Marks["ana"].Unsure {
		t.Errorf("a labeller's grade or mark is lost: %v %v %+v", qa.Judgments, qb.Judgments, qb.Marks["ana"])
	}
	if len(qa.Gold) != 1 || qa.Gold[a0] != 2 || len(qb.Gold) != 0 || !qb.Unanswerable || qc.Gold[c0] != 2 {
		t.Errorf("gold: q-a %v, q-b %v (unanswerable %v), q-c %v", qa.Gold, qb.Gold, qb.Unanswerable, qc.Gold)
	}
	for _, q := range []string{a0, a1} {
		if a := qa.Adjudicated[q]; a.By != "cara" || a.Grades["ana"] == a.Grades["ben"] {
			t.Errorf("decision on %s: %+v", q, a)
		}
	}
	if a := qb.Adjudicated[b0]; a.By != "cara" || a.Grade != 0 {
		t.Errorf("decision on %s: %+v", b0, a)
	}
	if len(qc.Adjudicated) != 0 {
		t.Errorf("an agreed grade was adjudicated: %v", qc.Adjudicated)
	}
	if qa.Marks["ana"].Seconds[a0] <= 0 {
		t.Errorf("no time per judgement recorded: %+v", qa.Marks["ana"])
	}
}

func gateLoadDraft(path string) ([]*gate.Query, error) {
	s, err := setfile.LoadDraft(path)
	if err != nil {
		return nil, err
	}
	return s.Queries, nil
}

// TestLabelProcessesConcurrentWritesAndKill9 runs the real binary: a
// second label on the same file stops at once naming the first one's pid;
// eight clients grading at once lose no acknowledged grade; a kill -9 in
// the middle of a stream of writes leaves a whole file holding every grade
// acknowledged before it, and the next label takes the dead one's lock.
func TestLabelProcessesConcurrentWritesAndKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir, cfg, draft := labelFixture(t)
	bin := filepath.Join(dir, "recallgate")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	start := func(who string) (*exec.Cmd, string) {
		t.Helper()
		cmd := exec.Command(bin, "label", "--config", cfg, "--labeller", who, "--depth", "3")
		out, _ := cmd.StdoutPipe()
		cmd.Stderr = io.Discard
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		line, _ := bufio.NewReader(out).ReadString('\n')
		base := regexp.MustCompile(`http://127\.0\.0\.1:\d+/\?t=[0-9a-f]{32}`).FindString(line)
		if base == "" {
			t.Fatalf("label did not start: %q", line)
		}
		return cmd, base
	}
	first, base := start("ana")
	second := exec.Command(bin, "label", "--config", cfg, "--labeller", "ben", "--depth", "3")
	msg, err := second.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(msg), fmt.Sprintf("pid %d", first.Process.Pid)) {
		t.Errorf("second label: %v %s", err, msg)
	}

	type pair struct{ q, doc string }
	var pairs []pair
	for _, q := range getState(t, base).Queries {
		for _, c := range q.Candidates {
			pairs = append(pairs, pair{q.ID, c.Doc})
		}
	}
	gradeURL := apiURL(t, base, "api/grade")
	send := func(p pair, g int) bool {
		body := fmt.Sprintf(`{"id":%q,"doc":%q,"grade":%d}`, p.q, p.doc, g)
		req, _ := http.NewRequest("POST", gradeURL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Recallgate-Token", regexp.MustCompile(`t=([0-9a-f]+)`).FindStringSubmatch(base)[1])
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode == 200
	}
	var mu sync.Mutex
	acked := map[pair]int{}
	// pending is the one write in flight when the process was killed: it
	// may be on disk without its answer.
	var pending *struct {
		p pair
		g int
	}
	onDisk := func(when string) {
		t.Helper()
		qs, err := gateLoadDraft(draft)
		if err != nil {
			t.Fatalf("%s: the set file does not read: %v", when, err)
		}
		byID := map[string]map[string]int{}
		for _, q := range qs {
			byID[q.ID] = q.Judgments["ana"]
		}
		mu.Lock()
		defer mu.Unlock()
		for p, g := range acked {
			got, ok := byID[p.q][p.doc]
			if pending != nil && pending.p == p && got == pending.g {
				continue
			}
			if !ok || got != g {
				t.Errorf("%s: %s %s acknowledged as %d, on disk %d (%v)", when, p.q, p.doc, g, got, ok)
			}
		}
	}
	// Eight clients at once, each owning its pairs, four grades a pair.
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for round := 0; round < 4; round++ {
				for i := w; i < len(pairs); i += 8 {
					g := (round + i) % 2 // 0/1: never blocked by a mark
					if send(pairs[i], g) {
						mu.Lock()
						acked[pairs[i]] = g
						mu.Unlock()
					}
				}
			}
		}(w)
	}
	wg.Wait()
	if len(acked) != len(pairs) {
		t.Fatalf("%d of %d pairs acknowledged", len(acked), len(pairs))
	}
	onDisk("after concurrent writes")

	// A stream of writes, killed with SIGKILL in the middle.
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for i := 0; ; i++ {
			p, g := pairs[i%len(pairs)], 1+i%2
			mu.Lock()
			pending = &struct {
				p pair
				g int
			}{p, g}
			mu.Unlock()
			if !send(p, g) {
				t.Logf("killed after %d acknowledged writes in the stream", i)
				return
			}
			mu.Lock()
			acked[p] = g
			mu.Unlock()
		}
	}()
	time.Sleep(300 * time.Millisecond)
	first.Process.Signal(syscall.SIGKILL)
	first.Wait()
	<-stopped
	onDisk("after kill -9")
	// The dead process's lock is taken over.
	_, base = start("ana")
	if s := getState(t, base); len(s.Queries) != 3 {
		t.Errorf("after the kill the next label shows %d queries", len(s.Queries))
	}
}

// TestDocumentFoundBySearchBecomesGold: the pool of "rotate api key" (one
// document a retriever) lacks the SAML page; a search of the corpus from
// the page finds it, a grade makes it gold, marked as found by search, and
// a run that returns it scores it as a hit.
func TestDocumentFoundBySearchBecomesGold(t *testing.T) {
	dir, cfg, draft := labelFixture(t)
	write(t, dir, "draft.jsonl", `{"id":"q-a","query":"rotate api key","gold":{}}`+"\n")
	base, stop := startLabel(t, "--config", cfg, "--labeller", "ana", "--depth", "1")
	for _, c := range getState(t, base).Queries[0].Candidates {
		if c.Doc == "security/sso-saml" {
			t.Fatal("the pool already holds security/sso-saml: the case tests nothing")
		}
	}
	resp, err := http.Get(apiURL(t, base, "api/search") + "&id=q-a&q=" + url.QueryEscape("saml single sign-on"))
	if err != nil {
		t.Fatal(err)
	}
	var found struct {
		Results []struct {
			Doc    string `json:"doc"`
			InPool bool   `json:"in_pool"`
		} `json:"results"`
	}
	json.NewDecoder(resp.Body).Decode(&found)
	resp.Body.Close()
	if len(found.Results) == 0 || found.Results[0].Doc != "security/sso-saml" || found.Results[0].InPool {
		t.Fatalf("search found %+v", found.Results)
	}
	req, _ := http.NewRequest("POST", apiURL(t, base, "api/grade"), strings.NewReader(`{"id":"q-a","doc":"security/sso-saml","grade":2,"searched":true}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Recallgate-Token", regexp.MustCompile(`t=([0-9a-f]+)`).FindStringSubmatch(base)[1])
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("grade: %v %v", resp, err)
	}
	stop()
	if data, _ := os.ReadFile(draft); !strings.Contains(string(data), `"gold":{"security/sso-saml":2}`) || !strings.Contains(string(data), `"found_by_search":["security/sso-saml"]`) {
		t.Errorf("on disk: %s", data)
	}
	run := write(t, dir, "run.jsonl", `{"id":"q-a","hits":[{"doc":"security/api-keys"},{"doc":"security/sso-saml"}]}`+"\n")
	code, out, errs := rg(t, "score", "--set", draft, "--results", run, "--format", "json")
	if code != 0 || !strings.Contains(out, `"recall_at_n": 1,`) || !strings.Contains(out, `"first_hit_rank": 2,`) {
		t.Errorf("score: exit %d %s %s", code, out, errs)
	}
}

// TestSearchInChromium: on the page, / opens the corpus search, typed words
// and Enter show what it found below the pool, the first found document
// takes the focus and a key grades it (marked "found by search"); x shows
// more documents for the query beyond the pool.
func TestSearchInChromium(t *testing.T) {
	browser := needChromium(t, "")
	dir, cfg, draft := labelFixture(t)
	write(t, dir, "draft.jsonl", `{"id":"q-a","query":"rotate api key","gold":{}}`+"\n")
	base, stop := startLabel(t, "--config", cfg, "--labeller", "ana", "--depth", "1")
	d := startDevtools(t, browser, filepath.Join(dir, "profile"))
	d.navigate(t, base)
	d.waitFor(t, `document.querySelectorAll("#cards .card").length >= 1`)
	pooled, _ := d.eval(`document.querySelectorAll("#cards .card").length`)
	d.press(t, "/")
	d.waitFor(t, `document.activeElement && document.activeElement.id === "q"`)
	if _, err := d.call("Input.insertText", map[string]any{"text": "saml single sign-on"}); err != nil {
		t.Fatal(err)
	}
	d.press(t, "Enter")
	d.waitFor(t, `!!document.querySelector('#results .card[data-doc="security/sso-saml"]')`)
	d.waitFor(t, `(document.querySelector(".card.focus")||{dataset:{}}).dataset.doc === "security/sso-saml"`)
	d.press(t, "2")
	d.waitFor(t, `(document.querySelector('.card[data-doc="security/sso-saml"]')||{dataset:{}}).dataset.grade === "2"`)
	d.waitFor(t, `Array.from(document.querySelectorAll(".searched")).some(function(e){return e.textContent === "found by search";})`)
	d.press(t, "x")
	d.waitFor(t, `document.querySelectorAll("#results .card").length > 0`)
	stop()
	data, _ := os.ReadFile(draft)
	if !strings.Contains(string(data), `"gold":{"security/sso-saml":2}`) || !strings.Contains(string(data), `"found_by_search":["security/sso-saml"]`) {
		t.Errorf("on disk after the search (pool of %s): %s", pooled, data)
	}
}
