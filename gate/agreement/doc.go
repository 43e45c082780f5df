// Package agreement says how far two labellers agree on the documents both
// graded: Cohen's kappa, the quadratic-weighted kappa for graded labels and
// the kappa on relevant against not. validate reports the set's two main
// labellers (Labellers); the judge's calibration against people speaks it
// too (Grades). It imports only gate.
package agreement
