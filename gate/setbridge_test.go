package gate

import "io"

// The set file's reader is gate/setfile, above the root, which the root's
// own tests cannot import. They build their sets with it through these
// hooks, which setbridge_ext_test.go (package gate_test, compiled into the
// same test binary) sets to setfile's functions before any test runs.
var (
	SetfileParse, SetfileParseDraft func(io.Reader, string) (*Set, error)
	SetfileLoad, SetfileLoadDraft   func(string) (*Set, error)
)

// ParseSet is setfile.Parse.
func ParseSet(r io.Reader, name string) (*Set, error) { return SetfileParse(r, name) }

// ParseDraft is setfile.ParseDraft.
func ParseDraft(r io.Reader, name string) (*Set, error) { return SetfileParseDraft(r, name) }

// LoadSet is setfile.Load.
func LoadSet(path string) (*Set, error) { return SetfileLoad(path) }

// LoadDraft is setfile.LoadDraft.
func LoadDraft(path string) (*Set, error) { return SetfileLoadDraft(path) }

// CompareRepeats is gate/repeats' Compare (above the root too), its
// answer's three fields: set by setbridge_ext_test.go.
var CompareRepeats func([]*Scorecard) (worst *Scorecard, unstable map[string]bool, fewestFound map[string]int)
