package scribe

// Hooks for the external tests of decode.go (decode_test.go): the fast path
// is unexported, and its tests need the reference server (scribetest),
// which imports this package.
var (
	// DecodeTranscript is decodeTranscript.
	DecodeTranscript = decodeTranscript
	// DecodeTranscriptList is decodeTranscriptList.
	DecodeTranscriptList = decodeTranscriptList
	// DecodeNames are the member names the fast path reads, by the name of
	// the Go type they belong to.
	DecodeNames = map[string][]string{
		"Transcript":      transcriptNames,
		"TranscriptUser":  userNames,
		"TranscriptJob":   jobNames,
		"TranscriptAudio": audioNames,
		"List":            listNames,
	}
)
