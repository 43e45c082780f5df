package gate

import (
	"github.com/recallgate/recallgate/gate/childenv"
	"github.com/recallgate/recallgate/gate/input"
	"github.com/recallgate/recallgate/gate/visible"
)

// The names below are gate/input's, kept here so callers of the root need
// not change: new code names gate/input.

// The bounds on untrusted input: see gate/input.
const (
	MaxSetLineBytes    = input.MaxSetLineBytes
	MaxRunLineBytes    = input.MaxRunLineBytes
	MaxCorpusLineBytes = input.MaxCorpusLineBytes
	MaxGzipRatio       = input.MaxGzipRatio
	MinGzipAllowance   = input.MinGzipAllowance
	MaxJSONDepth       = input.MaxJSONDepth
	MaxConfigBytes     = input.MaxConfigBytes
	MaxRunIDBytes      = input.MaxRunIDBytes
	MaxShownIDChars    = input.MaxShownIDChars
)

// LimitError is input.LimitError.
type LimitError = input.LimitError

// DuplicateKeyError is input.DuplicateKeyError.
type DuplicateKeyError = input.DuplicateKeyError

// DepthError is input.DepthError.
type DepthError = input.DepthError

// Functions and errors of gate/input under their old names.
var (
	ClipID             = input.ClipID
	FormatBytes        = input.FormatBytes
	ReadInputFile      = input.ReadInputFile
	ReadAllLimited     = input.ReadAllLimited
	CheckInputFile     = input.CheckInputFile
	LFSPointerError    = input.LFSPointerError
	CheckDuplicateKeys = input.CheckDuplicateKeys
	DecodeStrict       = input.DecodeStrict
	ErrNotRegular      = input.ErrNotRegular
	ErrGzipBomb        = input.ErrGzipBomb
	ControlChar        = input.ControlChar
)

// The unexported names the root's readers use.
var (
	openInput     = input.Open
	within        = input.Within
	isLFSPointer  = input.IsLFSPointer
	eachLine      = input.EachLine
	fields6       = input.Fields6
	jsonLineError = input.JSONLineError
	jsonTypeName  = input.JSONTypeName
	jsonShown     = input.JSONShown
	asciiSpace    = &input.ASCIISpace
	looksJSON     = input.LooksJSON
)

const checkoutFix = input.CheckoutFix

type ratioReader = input.RatioReader

// RunnerSecret is childenv.RunnerSecret, kept for the HTTP retriever.
var RunnerSecret = childenv.RunnerSecret

// MaxGateNameLength is visible.MaxGateNameLength.
const MaxGateNameLength = visible.MaxGateNameLength

// gate/visible's names under their old names.
var (
	InvisibleRanges = visible.InvisibleRanges
	LookAlikeRanges = visible.LookAlikeRanges
	IsInvisible     = visible.IsInvisible
	IsBidiControl   = visible.IsBidiControl
	IsLookAlike     = visible.IsLookAlike
	InvisibleChar   = visible.InvisibleChar
	VisibleMark     = visible.VisibleMark
	Visible         = visible.Visible
	VisibleID       = visible.VisibleID
	ShowName        = visible.ShowName
	FoldName        = visible.FoldName
	CheckGateName   = visible.CheckGateName
)
