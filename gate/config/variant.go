package config

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/BurntSushi/toml"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/visible"
)

// MaxVariants is how many [variant.NAME.retriever] tables one config may
// hold: each is a retriever built and run over the whole set.
const MaxVariants = 64

// MaxVariantName is the longest variant name, in bytes.
const MaxVariantName = 100

// BaselineName is the name an experiment's reports give its baseline (the
// base side): no variant may take it, in any spelling that reads alike.
const BaselineName = "base"

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
	// Each name as it reads (ReadsAs), and the name that read so first.
	reads := map[string]string{ReadsAs(BaselineName): BaselineName}
	for _, k := range md.Keys() {
		if len(k) >= 2 && k[0] == "variant" && !seen[k[1]] {
			seen[k[1]] = true
			order = append(order, k[1])
		}
	}
	for _, name := range order {
		key := toml.Key{"variant", name}
		field := "variant." + name
		line := keyLine(data, key)
		if line == 0 {
			line = keyLine(data, toml.Key{"variant", name, "retriever"})
		}
		if err := checkVariantName(name); err != nil {
			return &gate.InputError{File: c.Path, Line: line, Field: field, Err: err}
		}
		if other, ok := reads[ReadsAs(name)]; ok {
			return &gate.InputError{File: c.Path, Line: line, Field: field, Err: alike(name, other, data)}
		}
		reads[ReadsAs(name)] = name
		t := raw.Variant[name]
		if t == nil || t.Retriever == nil {
			return &gate.InputError{File: c.Path, Line: line, Field: field, Err: fmt.Errorf("a variant is a retriever table: write [variant.%s.retriever] with its type and keys", name)}
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

// checkVariantName refuses a name no report could show on one line, or
// whose white space at an end no reader would see.
func checkVariantName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return errors.New("a variant needs a name: [variant.NAME.retriever]")
	case strings.TrimSpace(name) != name:
		return fmt.Errorf("the name %q starts or ends with white space, which no report shows: name it %q", name, strings.TrimSpace(name))
	case len(name) > MaxVariantName:
		return fmt.Errorf("the name is %d bytes long: at most %d", len(name), MaxVariantName)
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return fmt.Errorf("the name %q holds a control character", name)
	}
	return nil
}

// alike says that name reads as other, an earlier variant's name or the
// baseline's, in a report.
func alike(name, other string, data []byte) error {
	if other == BaselineName { // a variant of that name was refused before it was added
		if name == other {
			return fmt.Errorf("the name %q is the baseline's: a report shows the baseline as %q; name the variant otherwise", name, BaselineName)
		}
		return fmt.Errorf("the name %s reads as the baseline's %q in a report (letter case, width, compatibility forms, other scripts' look-alikes and invisible characters aside); name the variant otherwise", gate.ShowName(name), BaselineName)
	}
	where := ""
	if line := keyLine(data, toml.Key{"variant", other, "retriever"}); line > 0 {
		where = fmt.Sprintf(" (line %d)", line)
	}
	return fmt.Errorf("the name %s reads as variant %s%s in a report (letter case, width, compatibility forms, other scripts' look-alikes and invisible characters aside): two rows would read the same; name them apart", gate.ShowName(name), gate.ShowName(other), where)
}

// ReadsAs is a name as a reader sees it, for telling names apart that
// read alike: NFKC (full-width and compatibility forms to their plain
// letters), case folded, invisible characters (format characters such as
// zero-width spaces and bidi marks, variation selectors, other default
// ignorables, the blank-drawn ones such as U+2800) removed and each run of
// white space one space, trimmed; then Unicode's confusable skeleton (UTS
// #39), folded again, so a letter of another script drawn as a Latin one
// (Cyrillic с for c) reads as it. The result is a key to compare, not
// text to show: the skeleton writes m as rn and 0 as O.
func ReadsAs(name string) string {
	s := norm.NFKC.String(cases.Fold().String(norm.NFKC.String(name)))
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case invisible(r):
			continue
		case unicode.IsSpace(r):
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return cases.Fold().String(visible.Skeleton(b.String()))
}

// invisible reports a character a page draws as nothing.
func invisible(r rune) bool {
	return gate.IsInvisible(r) || unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Variation_Selector, r) || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) || unicode.IsControl(r) && !unicode.IsSpace(r)
}
