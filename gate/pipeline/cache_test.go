package pipeline

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
)

// counter is a command retriever that logs each query it answers and
// always answers right.
const counter = `import json, sys
for line in sys.stdin:
    req = json.loads(line)
    open(sys.argv[1], "a").write(req["id"] + "\n")
    print(json.dumps({"id": req["id"], "hits": [{"doc": {"first": "a", "second": "b"}.get(req["query"], "x")}]}), flush=True)
`

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestPlantedCacheEntryNotUsed: a pull request that commits a run under
// the base side's cache key (all zero recall) does not stand in for the
// base: the entry is refused with a warning naming it, and the base is
// really retrieved. An entry only added to the index is refused too; an
// untracked one (restored by actions/cache) is used.
func TestPlantedCacheEntryNotUsed(t *testing.T) {
	for _, tool := range []string{"git", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	dir := t.TempDir()
	put(t, dir, "set.jsonl", testSet)
	put(t, dir, "r.py", counter)
	calls := filepath.Join(t.TempDir(), "calls") // outside the repository
	cfgPath := put(t, dir, "rg.toml", "set = \"set.jsonl\"\ncache_dir = \"cache\"\n[retriever]\ntype = \"command\"\ncommand = [\"python3\", \"r.py\", \""+calls+"\"]\n")
	cfg, set := load(t, cfgPath)
	keys := map[string]string{"base": "0123abcd"}
	retrieve := func() (SideRun, string) {
		t.Helper()
		var stderr bytes.Buffer
		e := testEnv(&stderr)
		e.Cache = &RunCache{Dir: cfg.CacheDir, Keys: keys}
		runs, err := Retrieve(context.Background(), e, cfg, set, []string{"base"}, cfg.Depth.Candidates, 1)
		if err != nil || runs["base"].Err != nil {
			t.Fatalf("retrieve: %v %v\n%s", err, runs["base"].Err, stderr.String())
		}
		return runs["base"], stderr.String()
	}
	countCalls := func() int {
		data, _ := os.ReadFile(calls)
		return strings.Count(string(data), "\n")
	}
	// A first run fills the cache; its entry's name is the base key.
	if r, _ := retrieve(); r.Cached || countCalls() != 2 {
		t.Fatalf("first run: cached %v, %d calls", r.Cached, countCalls())
	}
	entries, _ := filepath.Glob(filepath.Join(dir, "cache", "run-*.jsonl"))
	if len(entries) != 1 {
		t.Fatalf("cache entries %v", entries)
	}
	entry := entries[0]
	good, _ := os.ReadFile(entry)
	// The change under test plants a run under that name, key line and
	// all, and commits it.
	planted := strings.NewReplacer(`"doc":"a"`, `"doc":"x"`, `"doc":"b"`, `"doc":"x"`).Replace(string(good))
	put(t, filepath.Dir(entry), filepath.Base(entry), planted)
	gitIn(t, dir, "init", "-q")
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "-q", "-m", "plant")
	r, warn := retrieve()
	if r.Cached || countCalls() != 4 || !strings.Contains(warn, "cache entry "+entry+" is in the repository's git tree") {
		t.Errorf("committed entry: cached %v, %d calls (want 4)\n%s", r.Cached, countCalls(), warn)
	}
	if c, err := gate.ScoreResults(set, r.First(), cfg.Depth); err != nil || c.Summary.Recall != 1 {
		t.Errorf("the base was not really retrieved: %v %+v", err, c)
	}
	// Only added to the index, never committed: refused too.
	gitIn(t, dir, "rm", "-q", "-f", "--cached", entry)
	gitIn(t, dir, "commit", "-q", "-m", "unplant")
	put(t, filepath.Dir(entry), filepath.Base(entry), planted)
	gitIn(t, dir, "add", entry)
	if r, warn := retrieve(); r.Cached || countCalls() != 6 || !strings.Contains(warn, entry) {
		t.Errorf("added entry: cached %v, %d calls (want 6)\n%s", r.Cached, countCalls(), warn)
	}
	// Untracked, as actions/cache restores it: used.
	gitIn(t, dir, "rm", "-q", "-f", "--cached", entry)
	if r, warn := retrieve(); !r.Cached || countCalls() != 6 {
		t.Errorf("untracked entry: cached %v, %d calls (want 6)\n%s", r.Cached, countCalls(), warn)
	}
}

// TestCacheEntryUnderAnotherKeyRefused: an entry renamed or copied to
// another side's key (or one without a key) is a miss with a warning, not
// an error, and the side is retrieved.
func TestCacheEntryUnderAnotherKeyRefused(t *testing.T) {
	dir := t.TempDir()
	put(t, dir, "set.jsonl", testSet)
	put(t, dir, "x.jsonl", goodRun)
	cfg, set := load(t, put(t, dir, "rg.toml", "set = \"set.jsonl\"\n[retriever]\ntype = \"file\"\npath = \"x.jsonl\"\n"))
	c := &RunCache{Dir: filepath.Join(dir, "cache"), Keys: map[string]string{"base": "b1", "head": "h1"}}
	fp := SideRun{Config: cfg.Base.Fingerprint()}
	baseKey, headKey := c.key(set, fp, "base", 5), c.key(set, fp, "head", 5)
	res := res("x", "x")
	if err := c.store(headKey, res, gate.RunMeta{Set: set.Fingerprint}); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	e := testEnv(&stderr)
	if _, ok := c.load(e, headKey, set); !ok {
		t.Fatalf("the entry under its own key was refused: %s", stderr.String())
	}
	data, _ := os.ReadFile(c.path(headKey))
	put(t, c.Dir, filepath.Base(c.path(baseKey)), string(data))
	if _, ok := c.load(e, baseKey, set); ok || !strings.Contains(stderr.String(), "cache entry "+c.path(baseKey)+" was written under key "+headKey+", not "+baseKey) {
		t.Errorf("a copied entry was used or not named: %s", stderr.String())
	}
	stderr.Reset()
	put(t, c.Dir, filepath.Base(c.path(baseKey)), strings.SplitN(string(data), "\n", 2)[1]) // no metadata line
	if _, ok := c.load(e, baseKey, set); ok || !strings.Contains(stderr.String(), "was written under no key") {
		t.Errorf("an entry without a key was used: %s", stderr.String())
	}
}
