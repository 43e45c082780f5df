// Package sethealth says what weakens an eval set as an instrument: too
// few answerable queries, gold no corpus holds, too few or too many known
// failures, stale or undated labels, queries of the same text. validate
// prints it and every report carries it. It imports only gate.
package sethealth
