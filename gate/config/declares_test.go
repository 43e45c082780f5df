package config

import "testing"

// TestDeclaresRetriever: every spelling of a retriever table Parse reads
// makes a file a recallgate config, so a base config written with one is
// never taken for no config; other TOML and non-TOML do not.
func TestDeclaresRetriever(t *testing.T) {
	for _, tt := range []struct {
		name, doc string
		want      bool
	}{
		{"table", "[retriever]\ntype = \"builtin\"\n", true},
		{"inline table", "retriever = { type = \"builtin\", corpus = \"corpus\" }\n", true},
		{"quoted key", "[\"retriever\"]\ntype = \"builtin\"\n", true},
		{"literal quoted key", "['retriever']\ntype = \"builtin\"\n", true},
		{"dotted key", "retriever.type = \"builtin\"\n", true},
		{"escaped quoted key", "[\"\\u0072etriever\"]\ntype = \"builtin\"\n", true},
		{"other case", "[RETRIEVER]\ntype = \"builtin\"\n", true},
		{"base side", "[base.retriever]\ntype = \"builtin\"\n", true},
		{"head side, inline", "head = { retriever = { type = \"builtin\" } }\n", true},
		{"base as a dotted table", "[base]\nretriever = { type = \"file\", path = \"run.jsonl\" }\n", true},
		{"no retriever", "[gate]\nmax_recall_drop = 0.02\n", false},
		{"a retriever key in another table", "[tool]\nretriever = \"x\"\n", false},
		{"not TOML", "# Notes\n\n[retriever] is the table recallgate reads\n", false},
	} {
		if got := DeclaresRetriever([]byte(tt.doc)); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
	// Each spelling that declares a retriever is one Parse reads.
	for _, doc := range []string{"retriever = { type = \"builtin\", corpus = \"corpus\" }\n", "[\"retriever\"]\ntype = \"builtin\"\ncorpus = \"c\"\n", "[RETRIEVER]\ntype = \"builtin\"\ncorpus = \"c\"\n"} {
		if c, err := Parse([]byte(doc), "r.toml"); err != nil || c.Base == nil {
			t.Errorf("Parse %q: %v", doc, err)
		}
	}
}

// TestDeclares: one decode says whether a file is a config, by a retriever
// table or by what a run-files-only config holds instead.
func TestDeclares(t *testing.T) {
	for _, tt := range []struct {
		name, doc string
		want      bool
	}{
		{"retriever", "[retriever]\ntype = \"builtin\"\n", true},
		{"gate table", "[gate]\nmax_recall_drop = 0.02\n", true},
		{"depth table", "[depth]\ncandidates = 50\n", true},
		{"top-level set", "set = \"queries.jsonl\"\n", true},
		{"set that is no string", "set = 3\n", false},
		{"gate that is no table", "gate = \"strict\"\n", false},
		{"other TOML", "[tool]\nname = \"x\"\n", false},
		{"not TOML", "# Notes\n\n[gate] is the table recallgate reads\n", false},
	} {
		if got := Declares([]byte(tt.doc)); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
