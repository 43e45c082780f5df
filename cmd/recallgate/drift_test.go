package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate/pipeline"
	"github.com/recallgate/recallgate/internal/cmarkgfm"
)

// driftRepo is a git repository with twelve documents and twelve queries
// (q01 finds d01 by its own word, …) whose baseline, written by `gate
// --write-baseline` at the first commit, is committed: a team's nightly
// drift run as the docs wire it.
func driftRepo(t *testing.T) *fixture {
	t.Helper()
	f := emptyRepo(t)
	dir := f.dir
	var set strings.Builder
	for i := 1; i <= 12; i++ {
		f.put(fmt.Sprintf("corpus/d%02d.md", i), fmt.Sprintf("# Topic %d\n\ncommon word%da word%db\n", i, i, i))
		fmt.Fprintf(&set, `{"id":"q%02d","query":"common word%da","gold":{"d%02d":1}}`+"\n", i, i, i)
	}
	f.put("set.jsonl", set.String())
	f.put("recallgate.toml", "set = \"set.jsonl\"\n[depth]\ncandidates = 3\ncontext = 1\n[gate]\nmax_recall_drop = 0.10\n[retriever]\ntype = \"builtin\"\ncorpus = \"corpus\"\n")
	f.base = f.commit("the set, the corpus and the gate")
	if code, out, errs := rg(t, "gate", "--config", filepath.Join(dir, "recallgate.toml"), "--allow-identical", "--no-cache", "--write-baseline", filepath.Join(dir, "baselines/head.jsonl")); code != 0 {
		t.Fatalf("write the baseline: exit %d\n%s\n%s", code, out, errs)
	}
	f.commit("baseline after review")
	return f
}

// drift runs `recallgate drift` on the repository's committed baseline.
func (f *fixture) drift(extra ...string) (int, string, string) {
	f.t.Helper()
	return rg(f.t, append([]string{"drift", "--config", filepath.Join(f.dir, "recallgate.toml"), "--baseline", filepath.Join(f.dir, "baselines/head.jsonl")}, extra...)...)
}

// TestDriftErosion: four merged changes, each losing one of the twelve
// queries (each PR's own delta, 1/12, is within max_recall_drop 0.10):
// the drift run fails (exit 1), says the corpus changed and how (four gold
// documents edited) and names the four commits, newest first, by short
// hash and subject; the commit the baseline was made at is in the report.
func TestDriftErosion(t *testing.T) {
	f := driftRepo(t)
	var commits []string
	for _, i := range []int{3, 5, 8, 11} {
		f.put(fmt.Sprintf("corpus/d%02d.md", i), fmt.Sprintf("# Topic %d\n\nrewritten without its words\n", i))
		commits = append(commits, f.commit(fmt.Sprintf("docs: shorten topic %d", i)))
	}
	f.put("NOTES.md", "unrelated\n")
	f.commit("notes: not an input")
	code, out, errs := f.drift()
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errs)
	}
	first, _, _ := strings.Cut(out, "\n")
	for _, want := range []string{"changed since the baseline (the likely cause): corpus (0 documents added, 0 removed, 4 edited; gold edited: d03, d05, d08, d11)", "4 commits since the baseline touched them"} {
		if !strings.Contains(first, want) {
			t.Errorf("headline lacks %q:\n%s", want, first)
		}
	}
	var list []string
	for i := len(commits) - 1; i >= 0; i-- {
		list = append(list, "  "+commits[i][:7]+" docs: shorten topic "+[]string{"3", "5", "8", "11"}[i])
	}
	want := "drift: commits since the baseline's that touched the config, the set, the corpus or the retriever's files (newest first):\n" + strings.Join(list, "\n") + "\n"
	if !strings.Contains(out, want) || strings.Contains(out, "notes: not an input") {
		t.Errorf("report does not name the four commits, newest first:\n%s", out)
	}
	if !strings.Contains(out, "drift: baseline made at commit "+f.base[:12]+" on ") {
		t.Errorf("report does not say the baseline's commit %s:\n%s", f.base[:12], out)
	}
	if !regexp.MustCompile(`mean recall@3 dropped by 0\.333 \(limit 0\.100, max_recall_drop\)`).MatchString(out) {
		t.Errorf("report does not fail on the recall drop:\n%s", out)
	}
	// The Markdown and the JSON say the same.
	md := filepath.Join(t.TempDir(), "drift.md")
	js := filepath.Join(t.TempDir(), "drift.json")
	if code, _, errs := f.drift("--format", "markdown", "--out", md, "--json-out", js); code != 1 {
		t.Fatalf("markdown: exit %d %s", code, errs)
	}
	mdb, _ := os.ReadFile(md)
	raw, _ := os.ReadFile(js)
	var jsb bytes.Buffer
	if err := json.Compact(&jsb, raw); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(mdb), "  - `"+commits[3][:7]+"` docs: shorten topic 11\n") || !strings.Contains(string(mdb), "gold edited: d03, d05, d08, d11") {
		t.Errorf("markdown:\n%s", mdb)
	}
	if !strings.Contains(jsb.String(), `"gold_edited":["d03","d05","d08","d11"]`) || !strings.Contains(jsb.String(), `"subject":"docs: shorten topic 11"`) || !strings.Contains(jsb.String(), `"commit":"`+f.base+`"`) {
		t.Errorf("json baseline block:\n%s", jsb.String())
	}
	// Every format read back from the JSON says the corpus changed and how.
	for _, format := range []string{"text", "html", "junit", "markdown"} {
		if code, out, errs := rg(t, "report", "--in", js, "--format", format); code != 0 || !strings.Contains(out, "gold edited: d03, d05, d08, d11") || !strings.Contains(out, "docs: shorten topic 11") {
			t.Errorf("%s read back from the JSON: exit %d\n%s\n%s", format, code, out, errs)
		}
	}
}

// TestDriftBaselineCommitUnknown: a baseline whose commit this clone does
// not have (a shallow checkout) still runs, and says the commits since it
// are not listed, and why.
func TestDriftBaselineCommitUnknown(t *testing.T) {
	f := driftRepo(t)
	p := filepath.Join(f.dir, "baselines/head.jsonl")
	data, _ := os.ReadFile(p)
	forged := strings.Replace(string(data), `"commit":"`+f.base+`"`, `"commit":"`+strings.Repeat("a", 40)+`"`, 1)
	if forged == string(data) {
		t.Fatalf("the baseline records no commit %s:\n%.300s", f.base, data)
	}
	f.put("baselines/head.jsonl", forged)
	code, out, errs := f.drift()
	if code != 0 || !strings.Contains(out, "drift: not known: the commits since the baseline's aaaaaaaaaaaa are not listed: commit aaaaaaaaaaaa is not in this checkout (a shallow clone? fetch the history, e.g. fetch-depth: 0)\n") {
		t.Errorf("exit %d\n%s\n%s", code, out, errs)
	}
}

// TestDriftDocumentAdded: a night on which only a document was added
// passes (exit 0) and says the corpus changed, naming the commit.
func TestDriftDocumentAdded(t *testing.T) {
	f := driftRepo(t)
	f.put("corpus/d13.md", "# Topic 13\n\nsomething new entirely\n")
	sha := f.commit("docs: add topic 13")
	// --accept-changed-inputs is still taken, and changes nothing.
	code, out, errs := f.drift("--accept-changed-inputs")
	first, _, _ := strings.Cut(out, "\n")
	if code != 0 || !strings.Contains(first, "corpus (1 document added, 0 removed, 0 edited)") || !strings.Contains(out, "\n  "+sha[:7]+" docs: add topic 13\n") {
		t.Errorf("exit %d, want 0 saying the corpus changed and naming %s\n%s\n%s", code, sha[:7], out, errs)
	}
}

// TestDriftSetGrown: a set grown by two queries passes (exit 0), naming
// the two as not compared; the other twelve are.
func TestDriftSetGrown(t *testing.T) {
	f := driftRepo(t)
	data, _ := os.ReadFile(filepath.Join(f.dir, "set.jsonl"))
	f.put("set.jsonl", string(data)+`{"id":"q13","query":"common word1b","gold":{"d01":1}}`+"\n"+`{"id":"q14","query":"common word2b","gold":{"d02":1}}`+"\n")
	f.commit("set: two more queries")
	code, out, errs := f.drift()
	if code != 0 || !strings.Contains(out, "drift: not compared: 2 queries new since the baseline: q13, q14\n") || !strings.Contains(out, "12 queries") {
		t.Errorf("exit %d, want 0 naming q13, q14 as not compared\n%s\n%s", code, out, errs)
	}
}

// TestDriftGoldDeleted: a night on which a gold document was deleted from
// the corpus fails (exit 1) by max_missing_gold, naming the document and
// its query; the query itself is data quality, not a regression.
func TestDriftGoldDeleted(t *testing.T) {
	f := driftRepo(t)
	if err := os.Remove(filepath.Join(f.dir, "corpus/d07.md")); err != nil {
		t.Fatal(err)
	}
	f.commit("docs: drop topic 7")
	code, out, errs := f.drift()
	const why = "1 gold document left the corpus (limit 0, max_missing_gold): d07 (query q07)"
	if code != 1 || !strings.Contains(out, why) || !strings.Contains(out, "gold removed: d07") {
		t.Errorf("exit %d, want 1 naming d07 and max_missing_gold\n%s\n%s", code, out, errs)
	}
	// The drift issue's body is the Markdown report: it says it.
	code, out, errs = f.drift("--format", "markdown")
	if code != 1 || !strings.Contains(out, "- **fail:** 1 gold document left the corpus (limit 0, max&#95;missing&#95;gold): `d07` (query `q07`)") {
		t.Errorf("markdown: exit %d\n%s\n%s", code, out, errs)
	}
}

// TestDriftHostileCommitSubject: a commit subject is the repository's
// text: its control characters show as marks (visible.Terminal), so the JSON report reads
// back strictly, and the Markdown escapes what would be markup.
func TestDriftHostileCommitSubject(t *testing.T) {
	f := driftRepo(t)
	f.put("corpus/d13.md", "# Topic 13\n\nnew\n")
	sha := f.commit("docs \x1b[31mred\x1b[0m <img src=x onerror=alert(1)> @here **bold**")
	js := filepath.Join(t.TempDir(), "drift.json")
	if code, _, errs := f.drift("--json-out", js); code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	code, out, errs := rg(t, "report", "--in", js, "--format", "markdown")
	t.Run("cmark-gfm", func(t *testing.T) {
		cmarkgfm.AssertInert(t, out, "docs \x1b[31mred\x1b[0m <img src=x onerror=alert(1)> @here **bold**")
	})
	if code != 0 || strings.ContainsRune(out, 0x1b) || strings.Contains(out, "<img") || !strings.Contains(out, "`"+sha[:7]+"` docs ⟨U+001B⟩&#91;31mred⟨U+001B⟩&#91;0m &lt;img src=x onerror=alert(1)&gt; @\u200bhere &#42;&#42;bold&#42;&#42;\n") {
		t.Errorf("exit %d\n%s\n%s", code, out, errs)
	}
}

// TestDriftBaselineOverItsLimit: a drift baseline past MaxBaselineBytes
// (a sparse file: nothing is written to disk, nothing is read) is exit 2
// naming the file and the limit before a byte of it is read.
func TestDriftBaselineOverItsLimit(t *testing.T) {
	f := driftRepo(t)
	p := filepath.Join(f.dir, "baselines/head.jsonl")
	if err := os.Truncate(p, pipeline.MaxBaselineBytes+1); err != nil {
		t.Fatal(err)
	}
	code, out, errs := f.drift()
	want := p + ": baseline: the baseline run (268435457 bytes) is longer than 256 MiB"
	if code != 2 || !strings.Contains(errs, want) {
		t.Errorf("exit %d, want 2 saying %q\n%s\n%s", code, want, out, errs)
	}
}
