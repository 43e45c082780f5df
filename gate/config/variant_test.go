package config

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
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

// TestVariantNamesThatReadAlike: two variants whose names read the same
// in a report (white space at an end, letter case, full-width or
// compatibility forms, invisible characters), or one that reads as the
// baseline's "base", are refused by file:line, naming both.
func TestVariantNamesThatReadAlike(t *testing.T) {
	table := func(name string) string {
		return "[variant." + name + ".retriever]\ntype = \"file\"\npath = \"r\"\n"
	}
	// variantBase is 5 lines: the first variant's header is line 6, the
	// second's line 9.
	tests := []struct{ name, in, want string }{
		{"trailing space", variantBase + table(`chunk8`) + table(`"chunk8 "`),
			`e.toml:9: variant.chunk8 : the name "chunk8 " starts or ends with white space, which no report shows: name it "chunk8"`},
		{"trailing space first", variantBase + table(`"chunk8 "`) + table(`chunk8`),
			`e.toml:6: variant.chunk8 : the name "chunk8 " starts or ends with white space`},
		{"leading no-break space", variantBase + table(`"\u00a0chunk8"`),
			`e.toml:6: variant.` + "\u00a0" + `chunk8: the name "\u00a0chunk8" starts or ends with white space`},
		{"letter case", variantBase + table(`chunk8`) + table(`Chunk8`),
			`e.toml:9: variant.Chunk8: the name "Chunk8" reads as variant "chunk8" (line 6) in a report`},
		{"full width", variantBase + table(`chunk8`) + table(`"ｃｈｕｎｋ８"`),
			`e.toml:9: variant.ｃｈｕｎｋ８: the name "ｃｈｕｎｋ８" (\uff43\uff48\uff55\uff4e\uff4b\uff18) reads as variant "chunk8" (line 6)`},
		{"zero-width space", variantBase + table(`chunk8`) + table(`"chunk\u200b8"`),
			`e.toml:9: variant.chunk` + "\u200b" + `8: the name "chunk⟨U+200B⟩8" (chunk\u200b8) reads as variant "chunk8" (line 6)`},
		{"ligature and two spaces", variantBase + table(`"fine tuned"`) + table(`"ﬁne  tuned"`),
			`e.toml:9: variant.ﬁne  tuned: the name "ﬁne  tuned" (\ufb01ne  tuned) reads as variant "fine tuned" (line 6)`},
		{"another script's look-alike", variantBase + table(`chunk8`) + table(`"\u0441hunk8"`),
			"e.toml:9: variant.\u0441hunk8: the name \"\u0441hunk8\" (\\u0441hunk8) reads as variant \"chunk8\" (line 6)"},
		{"a blank-drawn character", variantBase + table(`chunk8`) + table(`"chunk8\u2800"`),
			"e.toml:9: variant.chunk8\u2800: the name \"chunk8⟨U+2800⟩\" (chunk8\\u2800) reads as variant \"chunk8\" (line 6)"},
		{"a Hangul filler", variantBase + table(`chunk8`) + table(`"chunk\u31648"`),
			`reads as variant "chunk8" (line 6)`},
		{"the baseline's name", variantBase + table(`base`),
			`e.toml:6: variant.base: the name "base" is the baseline's: a report shows the baseline as "base"; name the variant otherwise`},
		{"the baseline's name in capitals", variantBase + table(`BASE`),
			`e.toml:6: variant.BASE: the name "BASE" reads as the baseline's "base" in a report`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.in), "e.toml")
			var ie *gate.InputError
			if err == nil || !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v\nwant %s", err, tc.want)
			}
		})
	}
	// Names that read apart stay apart.
	c, err := Parse([]byte(variantBase+table(`chunk8`)+table(`chunk12`)+table(`"chunk 8"`)+table(`baseline`)), "e.toml")
	if err != nil || len(c.Variants) != 4 {
		t.Errorf("names that read apart: %v", err)
	}
}

func TestReadsAs(t *testing.T) {
	for in, want := range map[string]string{
		"Chunk8": "chunk8", "ｃｈｕｎｋ８": "chunk8", "chunk\u200b8": "chunk8", "\u202echunk8": "chunk8",
		"chunk\ufe0f8": "chunk8", "ﬁne\u00a0\u00a0tuned": "fine tuned", "Straße": "strasse", " a  b ": "a b",
		// Unicode's confusable skeleton: other scripts' look-alikes read
		// as the Latin letters (Cyrillic с, Greek ο), m as rn, 0 as o,
		// 1 as l; blank-drawn characters are gone.
		"\u0441hunk8": "chunk8", "v\u03bf": "vo", "v0": "vo", "rerank-m": "rerank-rn", "top1": "topl", "chunk8\u2800": "chunk8",
		"\u0434\u043e\u043a": "д" + "o" + "ĸ",
	} {
		if got := ReadsAs(in); got != want {
			t.Errorf("ReadsAs(%q) = %q, want %q", in, got, want)
		}
	}
}
