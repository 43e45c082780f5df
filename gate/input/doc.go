// Package input reads untrusted files boundedly and confined: a path is
// checked to be a regular file outside /proc, /sys and /dev before it is
// opened, a Git LFS pointer is refused, every read and line is bounded
// (limits.go) and so is an answer's hits (MaxKeptHits), JSON is decoded strictly (duplicate keys, unknown fields and
// trailing data refused), and JSONScanner walks the common shape of a
// corpus or run line faster, leaving every other line to the strict
// decoder. Its errors (InputError, InfraError) name the file,
// line and field. It imports only the standard library.
package input
