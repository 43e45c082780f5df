package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// shortService answers {"query","k"} on 127.0.0.1 with the documents
// "<query>-1" … "<query>-k", at most limit of them (0: no limit), and no
// hits at all for a query with "and" in it when strict.
func shortService(t *testing.T, limit int, strict bool) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, ok := readSearch(w, r)
		if !ok {
			return
		}
		n := req.K
		if limit > 0 {
			n = min(n, limit)
		}
		if strict && strings.Contains(req.Query, " and ") {
			n = 0
		}
		hits := []string{}
		for i := 1; i <= n; i++ {
			hits = append(hits, fmt.Sprintf(`{"doc":"%s-%d"}`, strings.Fields(req.Query)[0], i))
		}
		fmt.Fprintf(w, `{"results":[%s]}`, strings.Join(hits, ","))
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/search"
}

// shortWorld is six queries whose gold is their own document at rank 4
// ("qN-4"), a base side answered by an uncapped service and a head side by
// the service at head (both http).
func shortWorld(t *testing.T, base, head string) string {
	dir := t.TempDir()
	var set strings.Builder
	for i := 1; i <= 6; i++ {
		text := fmt.Sprintf("q%d plain", i)
		if i <= 2 {
			text = fmt.Sprintf("q%d this and that", i)
		}
		fmt.Fprintf(&set, `{"id":"q%d","query":%q,"gold":{"q%d-4":1}}`+"\n", i, text, i)
	}
	write(t, dir, "set.jsonl", set.String())
	side := func(url string) string {
		return fmt.Sprintf("type = \"http\"\nurl = %q\nbody = '{\"query\": {{query}}, \"k\": {{k}}}'\nhits = \"results\"\ndoc = \"doc\"\nretries = 1\n", url)
	}
	return write(t, dir, "recallgate.toml", "set = \"set.jsonl\"\n[depth]\ncandidates = 5\ncontext = 2\n[gate]\nmax_recall_drop = 1\nmax_new_misses = 10\nmax_ndcg_drop = 1\nmax_precision_drop = 1\nmax_below_increase = 10\n[base.retriever]\n"+side(base)+"[head.retriever]\n"+side(head))
}

// TestCappedHeadDiagnosed (#50 item 8): a head service that returns at
// most 3 hits while asked for N = 5 (the base's returns 5) loses every
// gold document at rank 4; the report says the head is capped, in the
// text and the JSON's warnings, beside the misses. An uncapped head says
// nothing of it.
func TestCappedHeadDiagnosed(t *testing.T) {
	const want = "head returned at most 3 documents on 6 of 6 queries; N = 5: does it cap its answers below the candidates asked (a size limit of the service)? Its gold past rank 3 reads as a retrieval miss"
	cfg := shortWorld(t, shortService(t, 0, false), shortService(t, 3, false))
	code, out, errs := rg(t, "gate", "--config", cfg, "--no-cache")
	if code != 0 || !strings.Contains(out, want) {
		t.Errorf("capped head: exit %d, want 0 and %q\n%s\n%s", code, want, out, errs)
	}
	_, js, _ := rg(t, "gate", "--config", cfg, "--no-cache", "--format", "json")
	var r struct {
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(js), &r); err != nil || !strings.Contains(strings.Join(r.Warnings, "\n"), want) {
		t.Errorf("JSON warnings %q lack the cap (%v)", r.Warnings, err)
	}
	cfg = shortWorld(t, shortService(t, 0, false), shortService(t, 0, true))
	if _, out, _ := rg(t, "gate", "--config", cfg, "--no-cache"); strings.Contains(out, "cap its answers") {
		t.Errorf("an uncapped head read as capped:\n%s", out)
	}
}

// TestStricterMatchNotCalledAnOutage (#50 item 9): a head that requires
// every term answers nothing for the two queries with "and"; the report
// names them as empty answers and says what is known (an outage or a
// stricter match), never "a likely partial outage".
func TestStricterMatchNotCalledAnOutage(t *testing.T) {
	cfg := shortWorld(t, shortService(t, 0, false), shortService(t, 0, true))
	for _, f := range []string{"text", "markdown", "junit"} {
		code, out, errs := rg(t, "gate", "--config", cfg, "--no-cache", "--format", f)
		if code > 1 {
			t.Fatalf("%s: exit %d\n%s", f, code, errs)
		}
		if strings.Contains(out, "likely partial outage") || !strings.Contains(out, "an outage or a stricter match") {
			t.Errorf("%s: the empty answers are not told as an outage or a stricter match:\n%s", f, out)
		}
	}
	_, out, _ := rg(t, "gate", "--config", cfg, "--no-cache")
	if !strings.Contains(out, "the head returned no hits at all for 2 queries where the base had hits (an outage or a stricter match: check the retriever's errors, and whether it now requires every term): q1, q2") {
		t.Errorf("text: the empty-answer line is not as documented:\n%s", out)
	}
}
