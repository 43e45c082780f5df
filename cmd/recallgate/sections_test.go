package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// sectionsCorpus is a Markdown corpus folder: guide/backup has five
// sections (one nested, and a heading given twice), guide/restore one.
// A folder document's first "# " line is its title, outside its text.
var sectionsCorpus = map[string]string{
	"guide/backup.md": "# Backup guide\n\nIntro to backups.\n\n## Schedule\n\nBackups run nightly at two.\n\n## Retention\n\nSnapshots are kept for thirty days.\n\n" +
		"### Legal hold\n\nHeld snapshots never expire.\n\n## Notes\n\nFirst notes section.\n\n## Notes\n\nSecond notes section about restores.\n",
	"guide/restore.md": "# Restore\n\n## Steps\n\nRun the restore command.\n",
}

// sectionsSet: q1 and q2 label sections (q2 the second "Notes"), q3 the
// document, q4 another document's section.
const sectionsSet = `{"id":"q1","query":"how long are snapshots kept","gold":{"guide/backup#retention":2}}
{"id":"q2","query":"notes on restores","gold":{"guide/backup#notes-1":1}}
{"id":"q3","query":"backup guide","gold":{"guide/backup":1}}
{"id":"q4","query":"run a restore","gold":{"guide/restore#steps":1}}
`

// textHit is a run hit carrying only its document and its text.
func textHit(doc, text string) string {
	return fmt.Sprintf(`{"doc":%q,"text":%q}`, doc, text)
}

// offsetHit is a run hit carrying only its document and the byte offsets
// of text in the document's text (the file after its title line).
func offsetHit(t *testing.T, doc, text string) string {
	t.Helper()
	body := sectionsCorpus[doc+".md"]
	body = body[strings.IndexByte(body, '\n')+1:]
	i := strings.Index(body, text)
	if i < 0 {
		t.Fatalf("%q not in %s", text, doc)
	}
	return fmt.Sprintf(`{"doc":%q,"start":%d,"end":%d}`, doc, i, i+len(text))
}

// sectionsRun is a JSONL run of one hit per query.
func sectionsRun(hits ...string) string {
	var b strings.Builder
	for i, h := range hits {
		fmt.Fprintf(&b, `{"id":"q%d","hits":[%s]}`+"\n", i+1, h)
	}
	return b.String()
}

func sectionsDir(t *testing.T) string {
	dir := t.TempDir()
	for name, text := range sectionsCorpus {
		write(t, dir, filepath.Join("corpus", name), text)
	}
	write(t, dir, "set.jsonl", sectionsSet)
	return dir
}

var sectionsBase = []string{
	textHit("guide/backup", "Snapshots are kept for thirty days."),
	textHit("guide/backup", "Second notes section about restores."),
	textHit("guide/backup", "Backups run nightly at two."),
	textHit("guide/restore", "Run the restore command."),
}

// TestSectionLabelsThroughCompare (#58): gold on sections, runs whose
// hits carry only their text. The head returns the same documents but
// other sections: q1 (Schedule for Retention) and q2 (the first "Notes"
// for the second) regress and fail the gate, named doc#anchor; q3, a
// document label, is scored by documents and stays found; q4 unchanged.
func TestSectionLabelsThroughCompare(t *testing.T) {
	dir := sectionsDir(t)
	base := write(t, dir, "base.jsonl", sectionsRun(sectionsBase...))
	head := write(t, dir, "head.jsonl", sectionsRun(
		textHit("guide/backup", "Backups run nightly at two."),
		textHit("guide/backup", "First notes section."),
		textHit("guide/backup", "Held snapshots never expire."),
		textHit("guide/restore", "Run the restore command."),
	))
	args := []string{"compare", "--set", filepath.Join(dir, "set.jsonl"), "--base", base, "--head", head, "--corpus", filepath.Join(dir, "corpus"), "--candidates", "3", "--context", "1", "--max-new-misses", "0"}
	code, out, errs := rg(t, args...)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{
		"lost: guide/backup#retention", "retrieval miss: guide/backup#retention rank 1 → —, replaced by guide/backup#schedule",
		"lost: guide/backup#notes-1", "retrieval miss: guide/backup#notes-1 rank 1 → —, replaced by guide/backup#notes",
		"unit: documents and sections",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report does not name %q:\n%s", want, out)
		}
	}
	if lower := strings.ToLower(out); strings.Contains(lower, "not in corpus") || strings.Contains(lower, "not in the corpus") || strings.Contains(lower, "data quality") {
		t.Errorf("a section of a document the corpus holds reads as missing from it:\n%s", out)
	}
	code, out, errs = rg(t, append(args, "--format", "json")...)
	if code != 1 {
		t.Fatalf("json: exit %d\n%s", code, errs)
	}
	var r struct {
		Set struct {
			Unit string `json:"unit"`
		} `json:"set"`
		Regressed []string `json:"regressed"`
		Queries   []struct {
			ID     string `json:"id"`
			Change string `json:"change"`
			Head   struct {
				Recall float64 `json:"recall_at_n"`
			} `json:"head"`
		} `json:"queries"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Set.Unit != "documents and sections" || strings.Join(r.Regressed, ",") != "q1,q2" {
		t.Errorf("set.unit %q, regressed %v", r.Set.Unit, r.Regressed)
	}
	for _, q := range r.Queries {
		if (q.ID == "q3" || q.ID == "q4") && (q.Change != "unchanged" || q.Head.Recall != 1) {
			t.Errorf("%s: %s, head recall %v; want unchanged at 1", q.ID, q.Change, q.Head.Recall)
		}
	}
	if !strings.Contains(out, `"guide/backup#retention"`) {
		t.Errorf("the JSON report does not name guide/backup#retention:\n%s", out)
	}
}

// TestSectionOffsetsScoreLikeText: hits given as byte offsets score as the
// same hits given as text (compare passes, nothing changed), and offsets
// that point at another section are read (they fail it).
func TestSectionOffsetsScoreLikeText(t *testing.T) {
	dir := sectionsDir(t)
	base := write(t, dir, "base.jsonl", sectionsRun(sectionsBase...))
	same := write(t, dir, "same.jsonl", sectionsRun(
		offsetHit(t, "guide/backup", "Snapshots are kept for thirty days."),
		offsetHit(t, "guide/backup", "Second notes section about restores."),
		offsetHit(t, "guide/backup", "Backups run nightly at two."),
		offsetHit(t, "guide/restore", "Run the restore command."),
	))
	other := write(t, dir, "other.jsonl", sectionsRun(
		offsetHit(t, "guide/backup", "Backups run nightly at two."),
		offsetHit(t, "guide/backup", "Second notes section about restores."),
		offsetHit(t, "guide/backup", "Backups run nightly at two."),
		offsetHit(t, "guide/restore", "Run the restore command."),
	))
	args := func(head string) []string {
		return []string{"compare", "--set", filepath.Join(dir, "set.jsonl"), "--base", base, "--head", head, "--corpus", filepath.Join(dir, "corpus"), "--candidates", "3", "--context", "1", "--max-new-misses", "0", "--format", "json"}
	}
	code, out, errs := rg(t, args(same)...)
	if code != 0 || !strings.Contains(out, `"regressed": []`) || !strings.Contains(out, `"improved": []`) {
		t.Errorf("offsets against text: exit %d, want 0 and nothing changed\n%s\n%s", code, out, errs)
	}
	code, out, errs = rg(t, args(other)...)
	if code != 1 || !strings.Contains(out, `"regressed": [
    "q1"
  ]`) {
		t.Errorf("offsets at the schedule: exit %d, want 1 with q1 regressed\n%s\n%s", code, out, errs)
	}
}

// TestValidateSuggestsTheAnchor: a misspelt anchor is refused (exit 2)
// by file:line, with the nearest anchors of its document; a set naming
// sections without a corpus to place hits in is refused by compare.
func TestValidateSuggestsTheAnchor(t *testing.T) {
	dir := sectionsDir(t)
	set := write(t, dir, "typo.jsonl", `{"id":"q1","query":"kept","gold":{"guide/backup#retension":2}}`+"\n")
	code, out, errs := rg(t, "validate", "--set", set, "--corpus", filepath.Join(dir, "corpus"))
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s\n%s", code, out, errs)
	}
	if want := `typo.jsonl:1: query q1: gold not in corpus: guide/backup#retension (guide/backup has no section "retension"; nearest: retention,`; !strings.Contains(errs, want) {
		t.Errorf("stderr lacks %q:\n%s", want, errs)
	}
	code, out, errs = rg(t, "validate", "--set", filepath.Join(dir, "set.jsonl"), "--corpus", filepath.Join(dir, "corpus"))
	if code != 0 {
		t.Errorf("the right anchors: exit %d\n%s\n%s", code, out, errs)
	}
	base := write(t, dir, "base.jsonl", sectionsRun(sectionsBase...))
	code, _, errs = rg(t, "compare", "--set", filepath.Join(dir, "set.jsonl"), "--base", base, "--head", base)
	if code != 2 || !strings.Contains(errs, "set.jsonl:1: gold: query q1 labels sections (guide/backup#retention): hits are placed in them through the corpus; give --corpus") {
		t.Errorf("no corpus: exit %d\n%s", code, errs)
	}
}

// TestScoreSections: score places a section set's hits in --corpus (the
// base run finds every label: mean recall 1), and refuses without one.
func TestScoreSections(t *testing.T) {
	dir := sectionsDir(t)
	base := write(t, dir, "base.jsonl", sectionsRun(sectionsBase...))
	code, out, errs := rg(t, "score", "--set", filepath.Join(dir, "set.jsonl"), "--results", base, "--corpus", filepath.Join(dir, "corpus"), "--candidates", "3", "--context", "1", "--format", "json")
	if code != 0 || !strings.Contains(out, `"recall_at_n": 1,`) || strings.Contains(out, `"recall_at_n": 0`) || !strings.Contains(out, `"unit": "documents and sections"`) {
		t.Errorf("exit %d\n%s\n%s", code, out, errs)
	}
	code, _, errs = rg(t, "score", "--set", filepath.Join(dir, "set.jsonl"), "--results", base)
	if code != 2 || !strings.Contains(errs, "labels sections (guide/backup#retention)") {
		t.Errorf("no corpus: exit %d\n%s", code, errs)
	}
}

// TestRenamedHeadingIsDataQuality: the corpus renamed "## Retention"; the
// label guide/backup#retention names no section any more: the comparison
// lists it with the gold the corpus lost, not as a retrieval miss.
func TestRenamedHeadingIsDataQuality(t *testing.T) {
	dir := sectionsDir(t)
	write(t, dir, "corpus/guide/backup.md", strings.Replace(sectionsCorpus["guide/backup.md"], "## Retention", "## Keeping", 1))
	base := write(t, dir, "base.jsonl", sectionsRun(sectionsBase...))
	code, out, errs := rg(t, "compare", "--set", filepath.Join(dir, "set.jsonl"), "--base", base, "--head", base, "--corpus", filepath.Join(dir, "corpus"), "--candidates", "3", "--context", "1")
	if code != 0 || !strings.Contains(out, "q1 (line 1): gold not in the head's corpus: guide/backup#retention") {
		t.Errorf("exit %d\n%s\n%s", code, out, errs)
	}
}

// TestReverifyProposesTheRenamedHeading: the corpus renamed "## Retention"
// to "## Retention policy"; reverify shows guide/backup#retention as gold
// the corpus lost, proposes guide/backup#retention-policy (the heading most
// like it, not Schedule or Notes) with that section's text to grade, and a
// grade on it is written to the set as a section label.
func TestReverifyProposesTheRenamedHeading(t *testing.T) {
	dir := sectionsDir(t)
	write(t, dir, "corpus/guide/backup.md", strings.Replace(sectionsCorpus["guide/backup.md"], "## Retention", "## Retention policy", 1))
	write(t, dir, "set.jsonl", strings.ReplaceAll(sectionsSet, `1}}`, `1},"verified":"2026-11-20"}`))                                          // q1 is the one never verified
	write(t, dir, "base.jsonl", sectionsRun(append([]string{textHit("guide/backup", "Backups run nightly at two.")}, sectionsBase[1:]...)...)) // q1's pool: Schedule only
	cfg := write(t, dir, "recallgate.toml", "set = \"set.jsonl\"\ncorpus = \"corpus\"\n[base.retriever]\ntype = \"file\"\npath = \"base.jsonl\"\n[head.retriever]\ntype = \"file\"\npath = \"base.jsonl\"\n")
	base, _ := startServing(t, "reverify", "--config", cfg, "--labeller", "ana", "--sample", "1")
	resp, err := http.Get(apiURL(t, base, "api/state"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Queries []struct {
			ID          string            `json:"id"`
			MissingGold []string          `json:"missing_gold"`
			Proposed    map[string]string `json:"proposed"`
		} `json:"queries"`
	}
	json.NewDecoder(resp.Body).Decode(&s)
	resp.Body.Close()
	if len(s.Queries) != 1 || s.Queries[0].ID != "q1" {
		t.Fatalf("reverify shows %+v, want q1", s.Queries)
	}
	q := s.Queries[0]
	if strings.Join(q.MissingGold, ",") != "guide/backup#retention" || q.Proposed["guide/backup#retention"] != "guide/backup#retention-policy" {
		t.Errorf("missing %v, proposed %v; want guide/backup#retention → guide/backup#retention-policy", q.MissingGold, q.Proposed)
	}
	cards := sectionCandidates(t, base)["q1"]
	if !slices.ContainsFunc(cards, func(c string) bool {
		return strings.HasPrefix(c, "guide/backup#retention-policy | Retention policy | ") && strings.Contains(c, "Snapshots are kept for thirty days.")
	}) {
		t.Errorf("the proposed section is not shown to grade: %q", cards)
	}
	resp, err = http.Post(apiURL(t, base, "api/grade"), "application/json", strings.NewReader(`{"id":"q1","doc":"guide/backup#retention-policy","grade":2}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if line := strings.SplitN(string(must(os.ReadFile(filepath.Join(dir, "set.jsonl")))), "\n", 2)[0]; resp.StatusCode != http.StatusOK || !strings.Contains(line, `"guide/backup#retention-policy":2`) {
		t.Errorf("grade: %d; q1 on disk: %s", resp.StatusCode, line)
	}
}

// sectionCandidates is the page's state: each query's candidates with
// their title and passage joined.
func sectionCandidates(t *testing.T, base string) map[string][]string {
	t.Helper()
	resp, err := http.Get(apiURL(t, base, "api/state"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var s struct {
		Queries []struct {
			ID         string `json:"id"`
			Candidates []struct {
				Doc     string `json:"doc"`
				Title   string `json:"title"`
				Passage []struct {
					T string `json:"t"`
				} `json:"passage"`
			} `json:"candidates"`
		} `json:"queries"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, q := range s.Queries {
		for _, c := range q.Candidates {
			var p strings.Builder
			for _, x := range c.Passage {
				p.WriteString(x.T)
			}
			out[q.ID] = append(out[q.ID], c.Doc+" | "+c.Title+" | "+strings.Join(strings.Fields(p.String()), " "))
		}
	}
	return out
}

// sectionsLabelled: q1 labels a section and records its labeller's
// judgement (so a report knows what is unjudged); the head puts the
// Schedule section, which nobody judged, first in q1's context.
func sectionsLabelled(t *testing.T) (dir, cfg, rep string) {
	t.Helper()
	dir = sectionsDir(t)
	write(t, dir, "set.jsonl", `{"id":"q1","query":"how long are snapshots kept","gold":{"guide/backup#retention":2},"judgments":{"ana":{"guide/backup#retention":2}}}
{"id":"q4","query":"run a restore","gold":{"guide/restore#steps":1},"judgments":{"ana":{"guide/restore#steps":1}}}
`)
	write(t, dir, "base.jsonl", `{"id":"q1","hits":[{"doc":"guide/backup","text":"Snapshots are kept for thirty days."}]}
{"id":"q4","hits":[{"doc":"guide/restore","text":"Run the restore command."}]}
`)
	write(t, dir, "head.jsonl", `{"id":"q1","hits":[{"doc":"guide/backup","text":"Backups run nightly at two."},{"doc":"guide/backup","text":"Snapshots are kept for thirty days."}]}
{"id":"q4","hits":[{"doc":"guide/restore","text":"Run the restore command."}]}
`)
	cfg = write(t, dir, "recallgate.toml", "set = \"set.jsonl\"\ncorpus = \"corpus\"\n[depth]\ncandidates = 3\ncontext = 2\n[base.retriever]\ntype = \"file\"\npath = \"base.jsonl\"\n[head.retriever]\ntype = \"file\"\npath = \"head.jsonl\"\n")
	return dir, cfg, filepath.Join(dir, "report.json")
}

// TestLabelFromReportOffersSections: the report lists q1's unjudged
// guide/backup#schedule, the section the head's first chunk counts for;
// label --from-report offers exactly it, titled with its heading (read
// from the corpus's sections) beside the head's passage, and a grade on
// it is written as a section label.
func TestLabelFromReportOffersSections(t *testing.T) {
	dir, cfg, rep := sectionsLabelled(t)
	code, out, errs := rg(t, "gate", "--config", cfg, "--json-out", rep)
	if code != 1 || !strings.Contains(out, "q1  unjudged in head context: guide/backup#schedule") {
		t.Fatalf("gate: exit %d, want 1 naming the unjudged section\n%s%s", code, out, errs)
	}
	base, _ := startLabel(t, "--config", cfg, "--labeller", "bo", "--from-report", rep)
	got := sectionCandidates(t, base)
	want := "guide/backup#schedule | Schedule | Backups run nightly at two."
	if len(got) != 1 || strings.Join(got["q1"], "\n") != want {
		t.Errorf("from the report the page offers %q, want q1: %q", got, want)
	}
	resp, err := http.Post(apiURL(t, base, "api/grade"), "application/json", strings.NewReader(`{"id":"q1","doc":"guide/backup#schedule","grade":0}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if line := strings.SplitN(string(must(os.ReadFile(filepath.Join(dir, "set.jsonl")))), "\n", 2)[0]; resp.StatusCode != http.StatusOK || !strings.Contains(line, `"bo":{"guide/backup#schedule":0}`) {
		t.Errorf("grade: %d; q1 on disk: %s", resp.StatusCode, line)
	}
}

// TestLabelPoolOfSections: for a query whose gold names sections the
// labelling pool is the sections the retrievers' hits count for (as the
// gate scores them), each titled with its heading, not their documents; a
// document query's is of documents.
func TestLabelPoolOfSections(t *testing.T) {
	dir, cfg, _ := sectionsLabelled(t)
	write(t, dir, "set.jsonl", `{"id":"q1","query":"how long are snapshots kept","gold":{"guide/backup#retention":2}}
{"id":"q4","query":"run a restore","gold":{"guide/restore":1}}
`)
	base, _ := startLabel(t, "--config", cfg, "--labeller", "bo")
	got := sectionCandidates(t, base)
	want := map[string][]string{
		"q1": {
			"guide/backup#retention | Retention | Snapshots are kept for thirty days.",
			"guide/backup#schedule | Schedule | Backups run nightly at two.",
		},
		"q4": {"guide/restore | Restore | Run the restore command."},
	}
	for id, w := range want {
		g := append([]string(nil), got[id]...)
		sort.Strings(g)
		if strings.Join(g, "\n") != strings.Join(w, "\n") {
			t.Errorf("%s: the pool is\n%s\nwant\n%s", id, strings.Join(g, "\n"), strings.Join(w, "\n"))
		}
	}
}

// TestHTMLCorpusFolder: .html and .htm files of a corpus folder are HTML
// documents, their sections read from h1–h6 (an id attribute as the
// anchor, else the heading's slug). Gold on them scores: the head that
// returns the Schedule section for q1 loses guide/backup#keep (an h2 with
// id="keep"), q2 and q3 stay found; validate accepts the anchors and
// suggests the right one for a misspelt one.
func TestHTMLCorpusFolder(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "corpus/guide/backup.html", `<!doctype html><html><head><title>Backup &amp; restore guide</title></head><body>
<h1>Backup guide</h1><p>Intro to backups.</p>
<h2>Schedule</h2><p>Backups run nightly at two.</p>
<h2 id="keep">Retention</h2><p>Snapshots are kept for thirty days.</p>
</body></html>
`)
	write(t, dir, "corpus/guide/restore.htm", "<h2>Steps</h2>\n<p>Run the restore command.</p>\n")
	set := write(t, dir, "set.jsonl", `{"id":"q1","query":"how long are snapshots kept","gold":{"guide/backup#keep":2}}
{"id":"q2","query":"when do backups run","gold":{"guide/backup#schedule":1}}
{"id":"q3","query":"run a restore","gold":{"guide/restore#steps":1}}
`)
	base := write(t, dir, "base.jsonl", sectionsRun(
		textHit("guide/backup", "Snapshots are kept for thirty days."),
		textHit("guide/backup", "Backups run nightly at two."),
		textHit("guide/restore", "Run the restore command."),
	))
	head := write(t, dir, "head.jsonl", sectionsRun(
		textHit("guide/backup", "Backups run nightly at two."),
		textHit("guide/backup", "Backups run nightly at two."),
		textHit("guide/restore", "Run the restore command."),
	))
	corpusDir := filepath.Join(dir, "corpus")
	code, out, errs := rg(t, "compare", "--set", set, "--base", base, "--head", head, "--corpus", corpusDir, "--candidates", "3", "--context", "1", "--max-new-misses", "0")
	if code != 1 || !strings.Contains(out, "lost: guide/backup#keep") || !strings.Contains(out, "regressed (1)") || strings.Contains(strings.ToLower(out), "not in corpus") {
		t.Errorf("compare: exit %d, want 1 losing guide/backup#keep only\n%s\n%s", code, out, errs)
	}
	if code, out, errs := rg(t, "validate", "--set", set, "--corpus", corpusDir); code != 0 {
		t.Errorf("validate: exit %d\n%s\n%s", code, out, errs)
	}
	typo := write(t, dir, "typo.jsonl", `{"id":"q1","query":"kept","gold":{"guide/backup#kep":2}}`+"\n")
	if code, _, errs := rg(t, "validate", "--set", typo, "--corpus", corpusDir); code != 2 || !strings.Contains(errs, `guide/backup has no section "kep"; nearest: keep,`) {
		t.Errorf("validate a misspelt anchor: exit %d\n%s", code, errs)
	}
}

// TestLabelPageListsSections: the labelling page lists a document's
// sections (api/sections, the "h" key and a card's "sections" button) as
// cards, "doc#anchor" titled with the heading, the second "Notes" told
// from the first; a grade on one is written as a section label.
func TestLabelPageListsSections(t *testing.T) {
	dir, cfg, _ := sectionsLabelled(t)
	write(t, dir, "set.jsonl", `{"id":"q1","query":"backup guide","gold":{}}`+"\n")
	base, _ := startLabel(t, "--config", cfg, "--labeller", "bo")
	get := func(query string) (int, string) {
		t.Helper()
		resp, err := http.Get(apiURL(t, base, "api/sections") + "&" + query)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var r struct {
			Error   string `json:"error"`
			Results []struct {
				Doc   string `json:"doc"`
				Title string `json:"title"`
			} `json:"results"`
		}
		json.NewDecoder(resp.Body).Decode(&r)
		var rows []string
		for _, c := range r.Results {
			rows = append(rows, c.Doc+" "+c.Title)
		}
		return resp.StatusCode, r.Error + strings.Join(rows, "; ")
	}
	want := "guide/backup#schedule Schedule; guide/backup#retention Retention; guide/backup#legal-hold Legal hold; guide/backup#notes Notes; guide/backup#notes-1 Notes"
	if code, got := get("id=q1&doc=guide%2Fbackup"); code != http.StatusOK || got != want {
		t.Errorf("sections of guide/backup: %d %s\nwant %s", code, got, want)
	}
	if code, got := get("id=q1&doc=guide%2Fbackup%23notes"); code != http.StatusBadRequest {
		t.Errorf("sections of a section: %d %s, want 400", code, got)
	}
	if code, got := get("id=q1&doc=guide%2Fgone"); code != http.StatusNotFound || !strings.Contains(got, "guide/gone no sections") {
		t.Errorf("sections of a document not in the corpus: %d %s, want 404", code, got)
	}
	resp, err := http.Post(apiURL(t, base, "api/grade"), "application/json", strings.NewReader(`{"id":"q1","doc":"guide/backup#notes-1","grade":1}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if line := string(must(os.ReadFile(filepath.Join(dir, "set.jsonl")))); resp.StatusCode != http.StatusOK || !strings.Contains(line, `"gold":{"guide/backup#notes-1":1}`) {
		t.Errorf("grade: %d; q1 on disk: %s", resp.StatusCode, line)
	}
}

// TestLabelSectionsInChromium: on the page, "h" on a document's card lists
// its sections as cards after the pool's; the first (Schedule) is
// focused, and a key press grades it: the set file then holds the section
// label.
func TestLabelSectionsInChromium(t *testing.T) {
	browser := needChromium(t, "")
	dir, cfg, _ := sectionsLabelled(t)
	write(t, dir, "set.jsonl", `{"id":"q1","query":"backup guide","gold":{}}`+"\n")
	base, _ := startLabel(t, "--config", cfg, "--labeller", "bo")
	d := startDevtools(t, browser, filepath.Join(dir, "profile"))
	d.navigate(t, base)
	d.waitFor(t, `document.querySelectorAll(".card").length === 1`)
	d.press(t, "h")
	d.waitFor(t, `document.querySelectorAll(".card").length === 6`)
	d.waitFor(t, `(document.querySelector(".card.focus")||{dataset:{}}).dataset.doc === "guide/backup#schedule"`)
	d.press(t, "2")
	d.waitFor(t, `(document.querySelector(".card.focus")||{dataset:{}}).dataset.grade === "2"`)
	if line := string(must(os.ReadFile(filepath.Join(dir, "set.jsonl")))); !strings.Contains(line, `"gold":{"guide/backup#schedule":2}`) {
		t.Errorf("q1 on disk: %s", line)
	}
}

// TestRenamedHeadingBaseHoldsIt: the head side's corpus renamed "##
// Retention" and the base side's still has it. The label
// guide/backup#retention is held by the base's corpus, so the gate
// compares (the head's lost section is data quality, listed) instead of
// refusing the set as naming gold neither side holds.
func TestRenamedHeadingBaseHoldsIt(t *testing.T) {
	dir := sectionsDir(t)
	for name, text := range sectionsCorpus {
		write(t, dir, filepath.Join("corpus-base", name), text)
	}
	write(t, dir, "corpus/guide/backup.md", strings.Replace(sectionsCorpus["guide/backup.md"], "## Retention", "## Keeping", 1))
	cfg := write(t, dir, "recallgate.toml", "set = \"set.jsonl\"\n[depth]\ncandidates = 5\ncontext = 1\n"+
		"[base.retriever]\ntype = \"builtin\"\ncorpus = \"corpus-base\"\nchunk_words = 8\n[head.retriever]\ntype = \"builtin\"\ncorpus = \"corpus\"\nchunk_words = 8\n")
	code, out, errs := rg(t, "gate", "--config", cfg, "--no-cache")
	if code == 2 || strings.Contains(errs, "missing from both sides' corpora") {
		t.Fatalf("exit %d: a section the base's corpus holds was refused as gold neither side holds\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, "guide/backup#retention") {
		t.Errorf("exit %d: the report does not name the renamed section\n%s\n%s", code, out, errs)
	}
}
