package hi

import _ "embed"

//go:embed schema.json
var schema []byte

// Schema returns the JSON Schema (draft 2020-12) of a HumanInteraction message, for
// structured-output APIs. It states the form; [Parse] also checks what a schema cannot
// (participants unique, history actions among userActions, quorum within the participants).
// The caller may modify the returned copy.
func Schema() []byte { return append([]byte(nil), schema...) }
