package judge

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/config"
	"github.com/recallgate/recallgate/gate/retriever/spec"
)

// MaxGuidelineBytes bounds a guideline file.
const MaxGuidelineBytes = 1 << 20

// Identity is the judge a config names: its name, its fingerprint and
// the guideline it is sent.
type Identity struct {
	Name, Fingerprint, Guideline string
	// Grades name the grades, 0 first.
	Grades []string
}

// Labeller is the set's labeller name of the judge: "judge:<name>".
func (id Identity) Labeller() string { return gate.JudgePrefix + id.Name }

// DefaultGrades name the grades a judge is sent without [label] grades:
// grade i is the i-th name.
var DefaultGrades = []string{"not relevant", "related but not answering", "relevant", "highly relevant: answers it"}

// Identify reads the config's [judge] guideline (the [label] guideline
// when it gives none) and fingerprints the judge: the table as written,
// every file its command names inside the repository (spec.Retriever's
// NamedFiles, as for a command retriever: by path and bytes), the guideline's
// text and the grade names. A changed model, prompt, script or guideline
// is another judge; the folder the config sits in is not.
func Identify(cfg *config.Config) (Identity, error) {
	j := cfg.Judge
	id := Identity{Name: j.Name, Guideline: strings.TrimSpace(j.Guideline), Grades: cfg.GradeNames}
	if id.Grades == nil {
		id.Grades = DefaultGrades
	}
	if j.Guideline == "" && j.GuidelineFile == "" {
		id.Guideline = cfg.Guideline
	}
	if j.GuidelineFile != "" {
		b, err := gate.ReadInputFile(j.GuidelineFile, "judge guideline", MaxGuidelineBytes)
		if err != nil {
			return id, err
		}
		id.Guideline = strings.TrimSpace(string(b))
	}
	h := sha256.New()
	fmt.Fprintf(h, "table %s\n", j.Sum)
	// The files its command names, found and read as a command
	// retriever's are (inside the repository, bounded): a path out of it
	// is not read.
	named := spec.Retriever{Type: "command", Dir: cmp.Or(j.Dir, "."), Command: j.Command}
	fmt.Fprintf(h, "files %s\n", named.NamedFilesSum())
	sum := sha256.Sum256([]byte(id.Guideline))
	fmt.Fprintf(h, "guideline %s\n", hex.EncodeToString(sum[:]))
	fmt.Fprintf(h, "grades %q\n", id.Grades)
	id.Fingerprint = "sha256:" + hex.EncodeToString(h.Sum(nil))
	return id, nil
}
