package glci

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/publish"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func mrVars() map[string]string {
	return map[string]string{
		"GITLAB_CI": "true", "CI_API_V4_URL": "https://gitlab.example/api/v4", "CI_PROJECT_ID": "42",
		"CI_PIPELINE_SOURCE": "merge_request_event", "CI_MERGE_REQUEST_IID": "7", "CI_MERGE_REQUEST_EVENT_TYPE": "detached",
		"CI_MERGE_REQUEST_DIFF_BASE_SHA": "base0", "CI_COMMIT_SHA": "head0",
		"CI_PROJECT_DIR": "/builds/acme/rag", "CI_JOB_TOKEN": "job", RecallgateToken: "glpat",
	}
}

const RecallgateToken = TokenVariable

func TestReadRunnerReadsEachVariableOnce(t *testing.T) {
	vars := mrVars()
	seen := map[string]int{}
	rn := ReadRunner(func(k string) string { seen[k]++; return vars[k] })
	for k, n := range seen {
		if n != 1 {
			t.Errorf("%s read %d times", k, n)
		}
	}
	if !rn.CI || rn.MR != 7 || rn.SHA != "head0" || rn.Token != "glpat" || !rn.JobToken || rn.Mode("auto") != "pr" {
		t.Errorf("runner %+v", rn)
	}
}

func TestBaseSHA(t *testing.T) {
	for _, tc := range []struct {
		name     string
		edit     func(m map[string]string)
		runFiles bool
		want     string
		err      string
	}{
		{"detached", func(m map[string]string) {}, false, "base0", ""},
		{"merged results said detached", func(m map[string]string) { m["CI_MERGE_REQUEST_TARGET_BRANCH_SHA"] = "target0" }, false, "target0", ""},
		{"merged results", func(m map[string]string) {
			m["CI_MERGE_REQUEST_EVENT_TYPE"], m["CI_MERGE_REQUEST_TARGET_BRANCH_SHA"] = "merged_result", "target0"
		}, false, "target0", ""},
		{"merge train", func(m map[string]string) {
			m["CI_MERGE_REQUEST_EVENT_TYPE"], m["CI_MERGE_REQUEST_TARGET_BRANCH_SHA"] = "merge_train", "target0"
		}, false, "target0", ""},
		{"merge train without target", func(m map[string]string) { m["CI_MERGE_REQUEST_EVENT_TYPE"] = "merge_train" }, false, "base0", ""},
		{"push", func(m map[string]string) { m["CI_PIPELINE_SOURCE"] = "push" }, false, "", ""},
		{"no diff base", func(m map[string]string) { delete(m, "CI_MERGE_REQUEST_DIFF_BASE_SHA") }, false, "", "CI_MERGE_REQUEST_DIFF_BASE_SHA: not set in a merge_request_event pipeline"},
		{"no diff base, run files", func(m map[string]string) { delete(m, "CI_MERGE_REQUEST_DIFF_BASE_SHA") }, true, "", ""},
		{"no iid", func(m map[string]string) { m["CI_MERGE_REQUEST_IID"] = "x" }, false, "", "CI_MERGE_REQUEST_IID"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := mrVars()
			tc.edit(m)
			got, err := ReadRunner(env(m)).BaseSHA(tc.runFiles)
			var ie *gate.InputError
			switch {
			case tc.err == "" && (err != nil || got != tc.want):
				t.Errorf("got %q, %v; want %q", got, err, tc.want)
			case tc.err != "" && (!errors.As(err, &ie) || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("err %v, want an InputError with %q", err, tc.err)
			}
		})
	}
}

func TestTokenWarningNamesTheJobToken(t *testing.T) {
	m := mrVars()
	delete(m, TokenVariable)
	if w := ReadRunner(env(m)).TokenWarning(); !strings.Contains(w, "CI_JOB_TOKEN cannot write merge request notes") || !strings.Contains(w, "exit code stand") {
		t.Errorf("warning %q", w)
	}
	if w := ReadRunner(env(mrVars())).TokenWarning(); w != "" {
		t.Errorf("warning with a token: %q", w)
	}
}

// A query id carrying a GitLab log section marker or a line break stays
// one visible log line.
func TestStepLogIsInert(t *testing.T) {
	var log bytes.Buffer
	s := Step{Runner: ReadRunner(env(mrVars())), Log: &log}
	s.Publish(publish.Result{Candidates: 10, SetPath: "set.jsonl", Flagged: []publish.Regression{{ID: "q1\x1b[0Ksection_start:1:x\r\nfake", Line: 3, Base: 1, Lost: []string{"d\x1b[31m"}}}})
	s.Warningf("bad\nthing")
	out := log.String()
	if strings.Count(out, "\n") != 2 || strings.Contains(out, "\x1b[0K") || strings.Contains(out, "\x1b[31m") || !strings.Contains(out, "set.jsonl:3: query q1⟨U+001B⟩") {
		t.Errorf("log %q", out)
	}
}

func TestReportLocation(t *testing.T) {
	dir := t.TempDir()
	s := Step{Runner: Runner{ProjectDir: dir, Job: "retrieval gate"}}
	w, o, err := s.ReportLocation("docs")
	if err != nil || w != dir+"/.recallgate/recallgate-report-retrieval_gate-docs.json" || o != ".recallgate/recallgate-report-retrieval_gate-docs.json" {
		t.Errorf("%q %q %v", w, o, err)
	}
	if s.Relative(dir+"/sets/a.jsonl") != "sets/a.jsonl" || s.Relative("/elsewhere/a") != "/elsewhere/a" {
		t.Error("Relative")
	}
	// The JUnit report's path is the project's, as artifacts' paths are.
	if got := s.Runner.InProject("recallgate-junit.xml"); got != dir+"/recallgate-junit.xml" {
		t.Errorf("InProject %q", got)
	}
}

// A fork's merge request pipeline that runs in the fork writes to the
// merge request's project, not the fork; a schedule to its own project.
func TestAPIProject(t *testing.T) {
	m := mrVars()
	m["CI_MERGE_REQUEST_PROJECT_ID"], m["CI_MERGE_REQUEST_PROJECT_URL"], m["CI_PROJECT_ID"] = "42", "https://gitlab.example/acme/rag", "77"
	if id, url := ReadRunner(env(m)).APIProject(); id != "42" || url != "https://gitlab.example/acme/rag" {
		t.Errorf("merge request: %s %s", id, url)
	}
	m["CI_PIPELINE_SOURCE"] = "schedule"
	if id, _ := ReadRunner(env(m)).APIProject(); id != "77" {
		t.Errorf("schedule: %s", id)
	}
}

// TestRelativeEdges: a name starting with two dots is inside the project
// directory; its parent, a sibling sharing its prefix and a path through
// ".." are not (the check is confine.Rel's, with the system's separator).
func TestRelativeEdges(t *testing.T) {
	dir := "/builds/group/rag"
	s := Step{Runner: Runner{ProjectDir: dir}}
	for _, tt := range []struct{ p, want string }{
		{dir + "/sets/a.jsonl", "sets/a.jsonl"},
		{dir + "/..x", "..x"},
		{dir + "/../a.jsonl", dir + "/../a.jsonl"},
		{"/builds/group/rag2/a.jsonl", "/builds/group/rag2/a.jsonl"},
		{dir + "/sub/../../rag2/a.jsonl", dir + "/sub/../../rag2/a.jsonl"},
	} {
		if got := s.Relative(tt.p); got != tt.want {
			t.Errorf("Relative(%q) = %q, want %q", tt.p, got, tt.want)
		}
	}
}
