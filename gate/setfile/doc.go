// Package setfile holds the eval set file's operations above the set
// model: reading a qrels set's query texts from their own file and
// rewriting a set file's query lines in place. It imports only gate and
// the leaves; the root never imports it.
package setfile
