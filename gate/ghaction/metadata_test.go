package ghaction

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate/publish"
	"github.com/sethvargo/go-githubactions"
)

// section lists the keys two spaces in under a top-level key of an
// action.yml (its inputs or outputs), in file order.
func section(t *testing.T, path, top string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	in := false
	key := regexp.MustCompile(`^  ([a-z][a-z0-9-]*):`)
	for sc := bufio.NewScanner(f); sc.Scan(); {
		line := sc.Text()
		if line != "" && line[0] != ' ' && line[0] != '#' {
			in = line == top+":"
			continue
		}
		if m := key.FindStringSubmatch(line); in && m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

// TestActionMetadata: every input action.yml declares is one the binary
// reads (and no other is read), the native composite action declares the
// same inputs (plus version) and hands each to the binary under the name
// it reads, and both declare exactly the outputs the binary writes.
func TestActionMetadata(t *testing.T) {
	root := filepath.Join("..", "..")
	docker := section(t, filepath.Join(root, "action.yml"), "inputs")
	var asked []string
	getenv := func(k string) string {
		if strings.HasPrefix(k, "INPUT_") {
			asked = append(asked, k)
		}
		return ""
	}
	a := githubactions.New(githubactions.WithGetenv(getenv), githubactions.WithWriter(&bytes.Buffer{}))
	if _, err := ReadInputs(a, getenv); err != nil {
		t.Fatal(err)
	}
	read := map[string]bool{}
	for _, k := range asked {
		read[strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(k, "INPUT_"), "_", "-"))] = true
	}
	for _, in := range docker {
		if !read[in] {
			t.Errorf("action.yml declares input %s, which the binary never reads", in)
		}
		delete(read, in)
	}
	for in := range read {
		t.Errorf("the binary reads input %s, which action.yml does not declare", in)
	}

	nativePath := filepath.Join(root, "native", "action.yml")
	native := section(t, nativePath, "inputs")
	want := append([]string{"version"}, docker...)
	sort.Strings(want)
	got := append([]string(nil), native...)
	sort.Strings(got)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("native inputs %v, want action.yml's plus version %v", got, want)
	}
	body, _ := os.ReadFile(nativePath)
	for _, in := range docker {
		env := "INPUT_" + strings.ToUpper(strings.ReplaceAll(in, "-", "_")) + ": ${{ inputs." + in + " }}"
		if !bytes.Contains(body, []byte(env)) {
			t.Errorf("native/action.yml does not hand input %s to the binary (%s)", in, env)
		}
	}

	var w bytes.Buffer
	outFile := filepath.Join(t.TempDir(), "out")
	os.WriteFile(outFile, nil, 0o644)
	pa := githubactions.New(githubactions.WithGetenv(func(k string) string {
		if k == "GITHUB_OUTPUT" {
			return outFile
		}
		return ""
	}), githubactions.WithWriter(&w))
	Publish(pa, Runner{Output: outFile}, samplePublish(), func(s string, _ int) string { return s })
	data, _ := os.ReadFile(outFile)
	var written []string
	for _, m := range regexp.MustCompile(`(?m)^([a-z-]+)<<`).FindAllStringSubmatch(string(data), -1) {
		written = append(written, m[1])
	}
	sort.Strings(written)
	for _, p := range []string{filepath.Join(root, "action.yml"), nativePath} {
		outs := section(t, p, "outputs")
		sort.Strings(outs)
		if strings.Join(outs, ",") != strings.Join(written, ",") {
			t.Errorf("%s declares outputs %v; the binary writes %v", p, outs, written)
		}
	}
}

func samplePublish() publish.Result {
	return publish.Result{Verdict: "fail", RecallBase: 0.8, RecallHead: 0.7, RecallDelta: -0.1, Regressed: []string{"q1"}, Report: "r.json"}
}
