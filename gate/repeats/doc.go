// Package repeats reads what running one side several times tells: the
// queries whose top documents differed between the repeats (unstable) and
// the side's scorecard with each unstable query at its worst repeat. The
// pipeline turns it into the policy's Unstable and HeadUnstable. It imports
// only gate.
package repeats
