// Package setfile reads and rewrites the eval set file: Load and Parse
// (JSONL or TREC qrels, every rule of a frozen set), LoadDraft and
// ParseDraft (a set still being labelled), a qrels set's query texts from
// their own file, and a set file's query lines replaced in place. It
// imports only gate and the leaves; the root never imports it.
package setfile
