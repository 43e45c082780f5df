package config

import (
	"path/filepath"
	"strings"
	"testing"
)

const variantBase = `set = "q.jsonl"
[base.retriever]
type = "builtin"
corpus = "corpus"
title_boost = 2.0
`

func TestVariants(t *testing.T) {
	c, err := Parse([]byte(variantBase+`
[variant.zeta.retriever]
type = "builtin"
corpus = "corpus"
chunk_words = 8

[variant."a b".retriever]
type = "file"
path = "runs/a.jsonl"

[variant.mid.retriever]
type = "http"
url = "http://127.0.0.1:9/search"
`), filepath.Join("dir", "e.toml"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, v := range c.Variants {
		names = append(names, v.Name)
	}
	// The file's order, not the map's.
	if got := strings.Join(names, ","); got != "zeta,a b,mid" {
		t.Fatalf("variants %q", got)
	}
	if c.Base == nil || c.Head != nil {
		t.Errorf("base %v head %v: an experiment's config has a base and no head", c.Base, c.Head)
	}
	z, f := c.Variant("zeta").Retriever, c.Variant("a b").Retriever
	if z.ChunkWords != 8 || z.Corpus != filepath.Join("dir", "corpus") || z.Concurrency != 4 || z.Sum == "" {
		t.Errorf("zeta %+v: not prepared like a side's table", z)
	}
	if f.Path != filepath.Join("dir", "runs", "a.jsonl") {
		t.Errorf("file variant path %s", f.Path)
	}
	if c.Variant("nope") != nil || c.Variant("a b").Side() != "variant.a b" {
		t.Error("Variant lookup or Side")
	}
}

func TestVariantErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"unknown key", variantBase + "[variant.chunked.retriever]\ntype = \"builtin\"\ncorpus = \"c\"\nchunk_wrds = 8\n",
			"e.toml:9: variant.chunked.retriever.chunk_wrds: unknown key; did you mean chunk_words?"},
		{"unknown key of the variant table", variantBase + "[variant.x]\ncolour = 1\n[variant.x.retriever]\ntype = \"file\"\npath = \"r\"\n",
			"e.toml:7: variant.x.colour: unknown key"},
		{"no type", variantBase + "\n[variant.x.retriever]\ncorpus = \"c\"\n", "e.toml:7: variant.x.retriever.type: required"},
		{"bad type", variantBase + "[variant.x.retriever]\ntype = \"magic\"\n", "e.toml:7: variant.x.retriever.type: unknown retriever type \"magic\""},
		{"missing required key", variantBase + "[variant.x.retriever]\ntype = \"http\"\n", "e.toml:6: variant.x.retriever.url: required for a http retriever"},
		{"no retriever table", variantBase + "[variant.x]\n", "e.toml:6: variant.x: a variant is a retriever table"},
		{"control character in the name", variantBase + "[variant.\"a\\u0007b\".retriever]\ntype = \"file\"\npath = \"r\"\n", "variant.a\ab: the name \"a\\ab\" holds a control character"},
		{"runner secret", variantBase + "[variant.x.retriever]\ntype = \"command\"\ncommand = [\"p\"]\nenv = [\"GITHUB_TOKEN\"]\n", "e.toml:9: variant.x.retriever.env: GITHUB_TOKEN is one of the runner's credentials"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.in), "e.toml")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v\nwant %s", err, tc.want)
			}
		})
	}
}

func TestVariantsKeepTheSidesRules(t *testing.T) {
	// A head table without a base is still refused; base and head with
	// variants are still a gate's config.
	if _, err := Parse([]byte("[head.retriever]\ntype = \"file\"\npath = \"r\"\n[variant.x.retriever]\ntype = \"file\"\npath = \"r\"\n"), "e.toml"); err == nil || !strings.Contains(err.Error(), "go together") {
		t.Errorf("head without base: %v", err)
	}
	c, err := Parse([]byte(variantBase+"[head.retriever]\ntype = \"file\"\npath = \"h\"\n[variant.x.retriever]\ntype = \"file\"\npath = \"r\"\n"), "e.toml")
	if err != nil || c.Head == nil || len(c.Variants) != 1 {
		t.Errorf("base, head and a variant: %v %+v", err, c)
	}
}
