package pipeline

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/basetree"
)

// policyFile is where the base commit keeps the gate's config.
type policyFile struct {
	// At is the file in the base tree, Rel its path from the repository's
	// top (slashes); both "" when the base commit has no recallgate
	// config at all (the change adopts recallgate).
	At, Rel string
	// Moved says the change moved, renamed or linked the config: the job
	// names another path, or reaches Rel through a link the base lacks.
	Moved bool
}

// findPolicyFile finds the base commit's config for a gate whose job names
// named (a path of the head's checkout, as the job gave it). The policy's
// file is found by where the config was, never by what the change points
// at: the base commit's file at the named path (no link of the head's
// checkout followed); else the one recallgate config the change removed,
// moved, renamed or replaced by a link, or the one the base branch's
// workflows name. Only a base commit with none of these adopts recallgate.
// Several candidates and none at the named path is refused: which one is
// the gate's policy cannot be told.
func findPolicyFile(tree *basetree.Tree, named string) (policyFile, error) {
	at, rel, err := tree.Named(named)
	if err != nil {
		return policyFile{}, &gate.InputError{File: named, Err: err}
	}
	if _, err := os.Lstat(at); err == nil {
		if !tree.Inside(at) {
			return policyFile{}, &gate.InputError{File: rel + "@" + ShortSHA(tree.Commit), Err: errors.New("the base commit's config is a link out of its own tree: refused")}
		}
		return policyFile{At: at, Rel: rel, Moved: tree.Linked(rel)}, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return policyFile{}, &gate.InputError{File: rel + "@" + ShortSHA(tree.Commit), Err: err}
	}
	var gone, wf []string
	if err := tree.Gone(func(r, p string) error {
		if looksLikeConfig(tree, p) {
			gone = append(gone, r)
		}
		return nil
	}); err != nil {
		return policyFile{}, fmt.Errorf("compare the base commit's tree with the checkout: %w", err)
	}
	for _, r := range workflowConfigs(tree.Dir) {
		if looksLikeConfig(tree, filepath.Join(tree.Dir, filepath.FromSlash(r))) {
			wf = append(wf, r)
		}
	}
	all := slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(gone), wf...))))
	pick := ""
	switch {
	case len(all) == 0:
		return policyFile{}, nil
	case len(all) == 1:
		pick = all[0]
	case len(gone) == 1:
		pick = gone[0] // a move is the strongest sign of where the gate's config was
	default:
		return policyFile{}, &gate.InputError{File: named, Err: fmt.Errorf("the base commit %s has no config at %s but has recallgate configs at %s (removed or moved by this change, or named by the base branch's workflows): which one is this gate's policy cannot be told; run the gate with the config at its path on the base branch",
			ShortSHA(tree.Commit), rel, strings.Join(all, ", "))}
	}
	return policyFile{At: filepath.Join(tree.Dir, filepath.FromSlash(pick)), Rel: pick, Moved: true}, nil
}

// retrieverTable is a recallgate config's retriever table header.
var retrieverTable = regexp.MustCompile(`(?m)^[ \t]*\[[ \t]*(?:(?:base|head)[ \t]*\.[ \t]*)?retriever[ \t]*\][ \t]*(?:#.*)?$`)

// looksLikeConfig reports whether p, a file of the base tree, is a
// recallgate config: a regular file (links followed only inside the tree)
// of at most gate.MaxConfigBytes with a retriever table. Whether it
// parses is the loader's to say, so a base config this release refuses is
// refused, never taken for no config.
func looksLikeConfig(tree *basetree.Tree, p string) bool {
	if !tree.Inside(p) {
		return false
	}
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > gate.MaxConfigBytes {
		return false
	}
	data, err := os.ReadFile(p)
	return err == nil && retrieverTable.Match(data)
}

// maxWorkflowBytes bounds each workflow file read for config paths.
const maxWorkflowBytes = 1 << 20

var (
	// workflowConfig finds a config path a workflow gives recallgate: the
	// action's config input, --config, RECALLGATE_CONFIG.
	workflowConfig = regexp.MustCompile(`(?:^\s*(?:-\s*)?config\s*:|--config(?:=|\s+)|RECALLGATE_CONFIG\s*[:=])\s*(\S+)`)
	// workflowDir finds the folder such a path is relative to.
	workflowDir = regexp.MustCompile(`(?:^\s*(?:-\s*)?working-directory\s*:|RECALLGATE_WORKING_DIRECTORY\s*[:=])\s*(\S+)`)
)

// workflowConfigs are the config paths (from the top, slashes) the base
// tree's workflows name: .github/workflows/*.yml|*.yaml and .gitlab-ci.yml,
// each path also under every working folder its file names, and the
// default recallgate.toml in a workflow that runs recallgate. Read line
// by line, not parsed: a path that is no recallgate config is dropped by
// the caller.
func workflowConfigs(dir string) []string {
	files, _ := filepath.Glob(filepath.Join(dir, ".github", "workflows", "*.y*ml"))
	files = append(files, filepath.Join(dir, ".gitlab-ci.yml"))
	var out []string
	for _, f := range files {
		fi, err := os.Lstat(f)
		if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxWorkflowBytes {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var paths []string
		dirs := []string{"."}
		sc := bufio.NewScanner(strings.NewReader(string(data)))
		sc.Buffer(nil, maxWorkflowBytes)
		for sc.Scan() {
			line := sc.Text()
			if m := workflowConfig.FindStringSubmatch(line); m != nil {
				paths = append(paths, unquote(m[1]))
			}
			if m := workflowDir.FindStringSubmatch(line); m != nil {
				dirs = append(dirs, unquote(m[1]))
			}
		}
		if strings.Contains(string(data), "recallgate") {
			paths = append(paths, "recallgate.toml")
		}
		for _, p := range paths {
			for _, d := range dirs {
				if c := path.Join(d, p); !strings.Contains(c, "$") && filepath.IsLocal(filepath.FromSlash(c)) {
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// unquote strips a YAML value's quotes.
func unquote(s string) string {
	return strings.Trim(s, `"'`)
}
