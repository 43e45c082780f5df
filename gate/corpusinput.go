package gate

// JSONLineError turns an encoding/json error of line n into an
// *InputError naming the field when it can, as the set and run readers
// word it (gate/corpus's strict decode says the same).
func JSONLineError(file string, n int, err error) *InputError { return jsonLineError(file, n, err) }
