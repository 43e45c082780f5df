// Package visible makes what an untrusted file says safe to show: ids and
// names with invisible, bidi-control or look-alike characters marked
// (Visible, VisibleID, ShowName, FoldName) and a gate's name checked
// (CheckGateName). It imports only the standard library.
package visible
