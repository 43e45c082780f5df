package config

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/BurntSushi/toml"

	"github.com/recallgate/recallgate/gate"
)

// MaxVariants is how many [variant.NAME.retriever] tables one config may
// hold: each is a retriever built and run over the whole set.
const MaxVariants = 64

// MaxVariantName is the longest variant name, in bytes.
const MaxVariantName = 100

// Variant is one [variant.NAME.retriever] table: a candidate retriever an
// experiment pairs with the base side, query by query.
type Variant struct {
	// Name is NAME, as written (untrusted: every report escapes it).
	Name string
	// Retriever is the table, checked and with its paths resolved like
	// [base.retriever].
	Retriever *Retriever
}

// Side is the variant's side name in retrieval and in its config keys'
// paths: "variant.NAME".
func (v Variant) Side() string { return "variant." + v.Name }

// variantTable is one [variant.NAME] table.
type variantTable struct {
	Retriever *Retriever `toml:"retriever"`
}

// Variant returns the variant of that name, or nil.
func (c *Config) Variant(name string) *Variant {
	for i := range c.Variants {
		if c.Variants[i].Name == name {
			return &c.Variants[i]
		}
	}
	return nil
}

// variants reads the [variant.NAME.retriever] tables in the order the
// file gives them; each is checked as [base.retriever] is, its errors
// naming the file, the line and the key (variant.NAME.retriever.KEY).
func (c *Config) variants(raw rawConfig, md toml.MetaData, data []byte, dir string) error {
	if len(raw.Variant) == 0 {
		return nil
	}
	if len(raw.Variant) > MaxVariants {
		return &gate.InputError{File: c.Path, Line: keyLine(data, toml.Key{"variant"}), Field: "variant", Err: fmt.Errorf("%d variants: at most %d", len(raw.Variant), MaxVariants)}
	}
	var order []string
	seen := map[string]bool{}
	for _, k := range md.Keys() {
		if len(k) >= 2 && k[0] == "variant" && !seen[k[1]] {
			seen[k[1]] = true
			order = append(order, k[1])
		}
	}
	for _, name := range order {
		key := toml.Key{"variant", name}
		field := "variant." + name
		if err := checkVariantName(name); err != nil {
			return &gate.InputError{File: c.Path, Line: keyLine(data, key), Field: field, Err: err}
		}
		t := raw.Variant[name]
		if t == nil || t.Retriever == nil {
			return &gate.InputError{File: c.Path, Line: keyLine(data, key), Field: field, Err: fmt.Errorf("a variant is a retriever table: write [variant.%s.retriever] with its type and keys", name)}
		}
		if err := c.prepare(t.Retriever, dir, field+".retriever"); err != nil {
			var ie *gate.InputError
			if errors.As(err, &ie) && ie.Line == 0 && ie.Field != "" {
				// The key's line, else the table's header.
				tail := strings.Split(strings.TrimPrefix(ie.Field, field+"."), ".")
				if ie.Line = keyLine(data, append(toml.Key{"variant", name}, tail...)); ie.Line == 0 {
					ie.Line = keyLine(data, toml.Key{"variant", name, "retriever"})
				}
			}
			return err
		}
		c.Variants = append(c.Variants, Variant{Name: name, Retriever: t.Retriever})
	}
	return nil
}

// checkVariantName refuses a name no report could show on one line.
func checkVariantName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return errors.New("a variant needs a name: [variant.NAME.retriever]")
	case len(name) > MaxVariantName:
		return fmt.Errorf("the name is %d bytes long: at most %d", len(name), MaxVariantName)
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return fmt.Errorf("the name %q holds a control character", name)
	}
	return nil
}
