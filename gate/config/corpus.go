package config

// SideCorpus is the corpus a side ("base" or "head") is judged against:
// the documents attribution, the gold check, the health check and a
// drift baseline read. It is the config's `corpus` key, else that side's
// builtin retriever's corpus, else "" (none known; also for a nil
// config). Every command that asks which corpus a side uses asks here.
func (c *Config) SideCorpus(side string) string {
	if c == nil {
		return ""
	}
	if c.Corpus != "" {
		return c.Corpus
	}
	r := c.Head
	if side == "base" {
		r = c.Base
	}
	if r != nil && r.Type == "builtin" {
		return r.Corpus
	}
	return ""
}
